#!/usr/bin/env node
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { runLoad } from './load.js';
import { startChurn } from './soak-churn.js';
import { holdLoad } from './soak-load.js';
import { parseSoakOptions, SOAK_USAGE } from './soak-options.js';
import { describeChildren, stopChildrenOnSignal } from './processes.js';
import { startSoakRig } from './soak-rig.js';
import { fdKinds, openFds, redisUsedBytes, rssMb, sessionKeys } from './soak-probes.js';
import { checkGoals, describe, figuresOf, summaryLine, type Point } from './soak-report.js';

// The BFF's default UPSTREAM_CONNECTIONS: the bench subject leaves it unset.
const UPSTREAM_POOL = 128;
const root = fileURLToPath(new URL('..', import.meta.url));

async function main(): Promise<number> {
  const options = parseSoakOptions(process.argv.slice(2), join(root, 'bench', 'results'));
  if (options === 'help') {
    process.stdout.write(SOAK_USAGE);
    return 0;
  }
  for (const file of ['dist/main.js', 'dist/simulator/cli.js']) {
    if (!existsSync(join(root, file)))
      throw new Error(`${file} is missing: run "npm run build" (npm run soak does it)`);
  }
  mkdirSync(options.outDir, { recursive: true });
  const log = (line: string) => process.stderr.write(`${line}\n`);
  stopChildrenOnSignal(log);
  log(`starting tigergraph-bff with ${options.sessions} sessions`);
  const rig = await startSoakRig(root, options);
  try {
    log(`started: ${describeChildren(rig.children)}`);
    const { redis, target, restppUrl } = rig;
    const pid = target.child.pid;
    const cookies = [...target.credentials.values];

    let maxRps: number | null = null;
    let rate = options.rate;
    if (rate === null) {
      await runLoad(target, { seconds: 1, connections: options.connections });
      maxRps = (await runLoad(target, { seconds: options.probeSeconds, connections: options.connections })).rps;
      rate = maxRps / 2;
      log(
        `maximum ${Math.round(maxRps)} req/s at ${options.connections} connections; holding ${Math.round(rate)} req/s for ${options.minutes} min`,
      );
      await sleep(1000); // let the probe's connections close before descriptors are counted
    }

    const seconds = options.minutes * 60;
    const windowSec = Math.min(30, Math.max(2, seconds / 10));
    const points: Array<Promise<Point>> = [];
    const tokenCallsBefore = await tokenCounts(restppUrl);
    const churn = startChurn({
      baseUrl: new URL(target.url).origin,
      cookies,
      secrets: rig.secrets,
      perSec: options.churnPerSec,
    });
    const load = holdLoad({
      url: target.url,
      headers: target.headers,
      cookies,
      rate,
      connections: options.connections,
      windowSec,
    });
    let seen = 0;
    let cpuBefore = target.child.cpuSeconds();
    const deadline = Date.now() + seconds * 1000;
    while (Date.now() < deadline) {
      await sleep(200);
      for (; seen < load.windows.length; seen++) {
        const window = load.windows[seen]!;
        const rss = rssMb(pid);
        const fds = openFds(pid);
        const kinds = fdKinds(pid, rig.ports);
        const cpu = target.child.cpuSeconds();
        const served = window.ok + window.failed;
        const cpuUsPerRequest =
          cpu !== null && cpuBefore !== null && served > 0 ? ((cpu - cpuBefore) * 1e6) / served : null;
        cpuBefore = cpu;
        points.push(
          pointAt(redis, target.redisPrefix!, rig.emptyRedisBytes, {
            window,
            rssMb: rss,
            fds,
            fdKinds: kinds,
            cpuUsPerRequest,
            loadAverage: loadavg()[0]!,
          }),
        );
        log(
          `${window.endSec.toFixed(0).padStart(5)} s: ${Math.round(window.rps)} req/s, p99 ${window.p99Ms.toFixed(2)} ms, failed ${window.failed}, RSS ${rss} MB, fds ${fds} ${JSON.stringify(kinds)}, CPU ${Math.round(cpuUsPerRequest ?? NaN)} µs/req`,
        );
      }
    }
    await churn.stop();
    await load.stop();
    await churn.finish();
    const tokenCallsAfter = await tokenCounts(restppUrl);

    // The first window is warm-up (JIT, heap growth, pools filling); start and end are three windows each.
    const measured = (await Promise.all(points)).slice(1);
    if (measured.length < 2) throw new Error('the run was too short for two measured windows; give more --minutes');
    const edge = Math.min(3, Math.floor(measured.length / 2));
    const start = figuresOf(measured.slice(0, edge));
    const end = figuresOf(measured.slice(-edge));
    const requests = load.windows.reduce((n, w) => n + w.ok + w.failed, 0);
    const failed = load.windows.reduce((n, w) => n + w.failed, 0) + churn.counts.failed;
    const goals = checkGoals(start, end, failed, UPSTREAM_POOL);
    const refreshes = (tokenCallsAfter['PUT /requesttoken'] ?? 0) - (tokenCallsBefore['PUT /requesttoken'] ?? 0);
    const summary = {
      minutes: options.minutes,
      rate,
      maxRps,
      requests,
      failed,
      sessions: options.sessions,
      logins: churn.counts.logins,
      logouts: churn.counts.logouts,
      refreshes,
    };
    writeFileSync(
      join(options.outDir, 'soak-latest.json'),
      `${JSON.stringify({ finishedAt: new Date().toISOString(), options, ...summary, failures: load.failures, start, end, goals, windows: load.windows }, null, 2)}\n`,
    );
    process.stdout.write(`${describe('start', start)}\n${describe('end', end)}\n`);
    for (const g of goals)
      process.stdout.write(`${g.met ? 'met ' : 'MISSED'} ${g.name} ${g.value} (goal ${g.limit})\n`);
    process.stdout.write(`${summaryLine({ ...summary, start, end, goals })}\n`);
    return goals.every((g) => g.met) ? 0 : 2;
  } finally {
    await rig.stop();
  }
}

async function pointAt(
  redis: Redis,
  prefix: string,
  emptyBytes: number,
  p: Pick<Point, 'window' | 'rssMb' | 'fds' | 'fdKinds' | 'cpuUsPerRequest' | 'loadAverage'>,
): Promise<Point> {
  const [{ sessions, keyBytes }, used] = await Promise.all([sessionKeys(redis, prefix), redisUsedBytes(redis)]);
  const per = (bytes: number) => (sessions > 0 ? bytes / sessions : null);
  return { ...p, sessions, redisBytesPerSession: per(used - emptyBytes), keyBytesPerSession: per(keyBytes) };
}

async function tokenCounts(restppUrl: string): Promise<Record<string, number>> {
  return (await (await fetch(`${restppUrl}/__sim/counts`)).json()) as Record<string, number>;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`soak: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
