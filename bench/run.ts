#!/usr/bin/env node
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { renderChart } from './chart.js';
import { currentLoad, describeMachine } from './machine.js';
import { measure } from './measure.js';
import { parseOptions, USAGE, type BenchOptions } from './options.js';
import { answers, describeChildren, freePort, startChild, stopChildrenOnSignal, type Child } from './processes.js';
import { deletePrefix, startPrivateRedis } from './redis-stats.js';
import { formatTable } from './report.js';
import { formatDashboard, runDashboard } from './dashboard.js';
import { simulatorClient } from './simulator-client.js';
import { subjectsFor, type Target } from './subjects.js';
import { checkTargets, compareBuilds, summarize } from './summary.js';
import { overloadPhase, type OverloadReport } from './overload-phase.js';
import { scalePhase, type ScaleRun } from './scale-phase.js';

const root = fileURLToPath(new URL('..', import.meta.url));

async function main(): Promise<number> {
  const parsed = parseOptions(process.argv.slice(2), process.env, join(root, 'bench', 'results'));
  if (parsed === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const options: BenchOptions = parsed;
  for (const file of ['dist/main.js', 'dist/simulator/cli.js']) {
    if (!existsSync(join(root, file)))
      throw new Error(`${file} is missing: run "npm run build" (npm run bench does it)`);
  }
  mkdirSync(options.outDir, { recursive: true });
  const machine = describeMachine();
  const started = new Date();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const children: Child[] = [];
  let redis: Redis | undefined;
  const prefixes: string[] = [];
  // An external Redis keeps the subjects' keys unless the interrupted run deletes them too.
  stopChildrenOnSignal(log, async () => {
    if (redis && options.redisUrl !== null)
      for (const prefix of prefixes) await deletePrefix(redis, prefix).catch(() => undefined);
    redis?.disconnect();
  });
  try {
    let redisUrl = options.redisUrl;
    if (redisUrl === null) {
      const own = await startPrivateRedis(join(options.outDir, 'redis-server.log'), root);
      children.push(own.child);
      redisUrl = own.url;
    }
    redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });

    const [restppPort, gsqlPort] = [await freePort(), await freePort()];
    const simArgs = [
      join(root, 'dist/simulator/cli.js'),
      '--restpp-port',
      String(restppPort),
      '--gsql-port',
      String(gsqlPort),
      '--latency-ms',
      '0',
    ];
    const restppUrl = `http://127.0.0.1:${restppPort}`;
    const simChild = await startChild({
      name: 'simulator',
      command: process.execPath,
      args: simArgs,
      env: { PATH: process.env.PATH ?? '' },
      cwd: root,
      logFile: join(options.outDir, 'simulator.log'),
      ready: answers(`${restppUrl}/__sim/counts`),
    });
    children.push(simChild);
    const sim = simulatorClient(restppUrl, `http://127.0.0.1:${gsqlPort}`);
    const secrets: string[] = [];
    for (let i = 0; i < options.sessions; i++) secrets.push(await sim.createSecret());

    const ctx = { root, options, sim, simChild, secrets, redisUrl };
    if (options.phases.length === 0 && options.extraPhases.length === 0 && options.dashboard) {
      // BENCH_PHASES=dashboard: that phase alone.
      const dashboard = await runDashboard(ctx, options.seconds.dashboard, log);
      writeFileSync(join(options.outDir, 'dashboard.json'), `${JSON.stringify({ machine, dashboard }, null, 2)}\n`);
      process.stdout.write(`\n${formatDashboard(dashboard)}\n\nWrote ${join(options.outDir, 'dashboard.json')}\n`);
      return 0;
    }
    const chosen = subjectsFor(options);
    const targets = new Map<string, Target>();
    for (const subject of chosen) {
      log(`starting ${subject.label}`);
      const target = await subject.start(ctx);
      if (target.child !== simChild) children.push(target.child);
      if (target.redisPrefix) prefixes.push(target.redisPrefix);
      targets.set(subject.id, target);
    }

    log(`started: ${describeChildren(children)}`);
    const rateReference = targets.has('bff-redis') ? 'bff-redis' : ([...targets.keys()].at(-1) as string);
    const samples = await measure({ options, targets, redis, sim, rateReference, progress: log });
    const summaries = summarize(
      samples,
      chosen.map((s) => {
        const target = targets.get(s.id) as Target;
        return {
          id: s.id,
          label: s.label,
          usesRedis: target.redisPrefix !== null,
          peakRssMb: target.child.peakRssMb(),
        };
      }),
    );
    const checks = checkTargets(samples, summaries);
    // After the rounds, each on a (d) of its own, so they never disturb the interleaved figures.
    let overload: OverloadReport | null = null;
    if (options.extraPhases.includes('overload')) {
      overload = await overloadPhase(ctx, { seconds: options.seconds.c50, stress: options.overloadStress, log });
      checks.push(...overload.checks);
    }
    let scale: ScaleRun[] | null = null;
    if (options.extraPhases.includes('scale'))
      scale = await scalePhase(ctx, redis, { counts: options.scaleSessions, seconds: options.seconds.c50, log });
    // After the others, with their subjects still up but idle: the dashboard's two services run one at a time.
    const dashboard = options.dashboard ? await runDashboard(ctx, options.seconds.dashboard, log) : null;
    const comparison = compareBuilds(samples, summaries);
    machine.loadAverage.end = currentLoad();
    const finished = new Date();
    const report = {
      startedAt: started.toISOString(),
      finishedAt: finished.toISOString(),
      durationSec: Math.round((finished.getTime() - started.getTime()) / 1000),
      machine,
      options: {
        ...options,
        outDir: undefined,
        redisUrl: options.redisUrl === null ? 'private redis-server' : 'external',
      },
      rateReference,
      subjects: summaries,
      targets: checks,
      ...(comparison && { comparison, compareDist: options.compareDist }),
      ...(overload && { overload }),
      ...(scale && { scale }),
      runs: samples,
      ...(dashboard && { dashboard }),
    };
    writeFileSync(join(options.outDir, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
    const title = `tigergraph-bff relay overhead: ${machine.cpus} x ${machine.cpuModel}, node ${machine.node}, ${started.toISOString().slice(0, 10)}`;
    writeFileSync(join(options.outDir, 'latest.svg'), renderChart(summaries, title));
    process.stdout.write(
      `\n${title}\n\n${formatTable(summaries, checks, comparison)}${formatScale(scale)}\n${dashboard ? `\n${formatDashboard(dashboard)}\n` : ''}\nWrote ${join(options.outDir, 'latest.json')} and latest.svg\n`,
    );
    return 0;
  } finally {
    if (redis) {
      if (options.redisUrl !== null)
        for (const prefix of prefixes) await deletePrefix(redis, prefix).catch(() => undefined);
      redis.disconnect();
    }
    for (const child of children.reverse()) await child.stop().catch(() => undefined);
  }
}

function formatScale(runs: ScaleRun[] | null): string {
  if (!runs) return '';
  const lines = runs.map(
    (r) =>
      `  ${String(r.sessions).padStart(6)} sessions: ${r.rps} req/s c=50, ${r.cpuUsPerRequest ?? '-'} us CPU/req, RSS ${r.rssMb ?? '-'} MB (peak ${r.peakRssMb ?? '-'}), ${r.redisCommandsPerRequest} Redis cmd/req${r.failed > 0 ? `, ${r.failed} FAILED` : ''}`,
  );
  return `\n\nScale ((d), every session in turn):\n${lines.join('\n')}`;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
