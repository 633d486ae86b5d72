import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { runLoad } from './load.js';
import { commandCounts, diffCounts, totalCount } from './redis-stats.js';
import { bff, type SubjectContext } from './subjects.js';

/** One session count's figures, for docs/deploying.md's sizing section. */
export interface ScaleRun {
  sessions: number;
  loginSeconds: number;
  rps: number;
  p99Ms: number;
  cpuUsPerRequest: number | null;
  /** VmRSS after the measured run, and the peak (VmHWM) over logins and load. */
  rssMb: number | null;
  peakRssMb: number | null;
  redisCommandsPerRequest: number;
  failed: number;
}

/** Sessions per credential: SESSIONS_PER_CREDENTIAL's default, so no login evicts another. */
const PER_CREDENTIAL = 100;

/**
 * Issue 46, item 5, "scale shown": a (d) of its own per session count (BENCH_SCALE_SESSIONS, default
 * 10,000, the session cache's default cap, and 50,000, past it), every session logged in, then closed-loop
 * load at c=50 rotating through all of them: one unmeasured pass, one measured run. A session count past the
 * cache's cap makes some requests read Redis: the Redis commands per request say how many.
 */
export async function scalePhase(
  ctx: SubjectContext,
  redis: Redis,
  opts: { counts: number[]; seconds: number; log: (line: string) => void },
): Promise<ScaleRun[]> {
  const runs: ScaleRun[] = [];
  for (const sessions of opts.counts) {
    const credentials = Math.ceil(sessions / PER_CREDENTIAL);
    const own: string[] = [];
    for (let i = 0; i < credentials; i++) own.push(await ctx.sim.createSecret());
    const secrets = Array.from({ length: sessions }, (_, i) => own[i % credentials] as string);
    opts.log(`scale: logging ${sessions} sessions in over ${credentials} secrets`);
    const began = performance.now();
    const target = await bff(`bff-scale-${sessions}`, `(d) ${sessions} sessions`, 'redis', {
      LOGIN_ADDRESS_BUDGET: String(sessions * 2),
      LOGIN_CREDENTIAL_BUDGET: String(PER_CREDENTIAL * 2),
    }).start({ ...ctx, secrets });
    const loginSeconds = (performance.now() - began) / 1000;
    try {
      // Every session once at least before measuring: as many requests as sessions, at c=50.
      await runLoad(target, { seconds: Math.max(1, Math.ceil(sessions / 2000)), connections: ctx.options.connections });
      const redisBefore = await commandCounts(redis);
      const cpuBefore = target.child.cpuSeconds();
      const result = await runLoad(target, { seconds: opts.seconds, connections: ctx.options.connections });
      const cpuAfter = target.child.cpuSeconds();
      const commands = totalCount(diffCounts(redisBefore, await commandCounts(redis)));
      const run: ScaleRun = {
        sessions,
        loginSeconds: Math.round(loginSeconds * 10) / 10,
        rps: Math.round(result.rps),
        p99Ms: Math.round(result.p99Ms * 1000) / 1000,
        cpuUsPerRequest:
          cpuBefore === null || cpuAfter === null || result.ok === 0
            ? null
            : Math.round(((cpuAfter - cpuBefore) / result.ok) * 1e6),
        rssMb: rssMb(target.child.pid),
        peakRssMb: target.child.peakRssMb(),
        redisCommandsPerRequest: result.ok > 0 ? Math.round((commands / result.ok) * 1000) / 1000 : NaN,
        failed: result.failed,
      };
      opts.log(
        `scale ${sessions} sessions: ${run.rps} req/s, p99 ${run.p99Ms} ms, ${run.cpuUsPerRequest ?? '?'} us CPU/req, RSS ${run.rssMb} MB (peak ${run.peakRssMb}), ${run.redisCommandsPerRequest} Redis cmd/req, logins ${run.loginSeconds} s`,
      );
      runs.push(run);
    } finally {
      await target.child.stop();
    }
  }
  return runs;
}

function rssMb(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round((Number(match[1]) / 1024) * 10) / 10 : null;
  } catch {
    return null;
  }
}
