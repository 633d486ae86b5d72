import type { Redis } from 'ioredis';
import { runLoad, type LoadResult } from './load.js';
import { runPaced } from './paced-load.js';
import type { BenchOptions } from './options.js';
import { commandCounts, diffCounts, type CommandCounts } from './redis-stats.js';
import type { SimulatorClient } from './simulator-client.js';
import type { Target } from './subjects.js';

export type Phase = 'c50' | 'c1' | 'rate';

export interface Sample {
  subject: string;
  phase: Phase;
  round: number;
  /** Requests per second asked for in the fixed-rate phase. */
  offeredRps: number | null;
  load: LoadResult;
  /** Commands the benchmark Redis served during the run, by name. */
  redis: CommandCounts;
  tokenCalls: number;
  /** CPU time the subject's own process used per 2xx request, in microseconds (null without /proc). */
  cpuUsPerRequest: number | null;
}

export interface MeasureDeps {
  options: BenchOptions;
  targets: Map<string, Target>;
  redis: Redis;
  sim: SimulatorClient;
  /** Which subject's maximum sets the fixed rate (half of its median c=50 throughput so far). */
  rateReference: string;
  progress: (line: string) => void;
}

/**
 * Rounds of interleaved runs: every phase visits every subject (A B C … then again), so slow drift of
 * a shared machine lands on all subjects alike. The subject order rotates each round, so none always
 * runs first after the previous phase. Every measured run follows an unmeasured warm-up (unless it is 0 s).
 */
export async function measure(deps: MeasureDeps): Promise<Sample[]> {
  const { options, targets } = deps;
  const ids = [...targets.keys()];
  const samples: Sample[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    const order = ids.map((_, i) => ids[(i + round - 1) % ids.length] as string);
    for (const phase of options.phases) {
      const offeredRps = phase === 'rate' ? fixedRate(samples, deps.rateReference) : null;
      for (const id of order) {
        const target = targets.get(id) as Target;
        const connections = phase === 'c1' ? 1 : options.connections;
        const run = (seconds: number) =>
          offeredRps === null
            ? runLoad(target, { connections, seconds })
            : runPaced(target, { connections, seconds, rate: offeredRps });
        if (options.warmupSeconds > 0) await run(options.warmupSeconds);
        const measured = async () => {
          const redisBefore = await commandCounts(deps.redis);
          const tokensBefore = await deps.sim.tokenCalls();
          const cpuBefore = target.child.cpuSeconds();
          const result = await run(options.seconds[phase]);
          const cpuAfter = target.child.cpuSeconds();
          const cpuUsPerRequest =
            cpuBefore === null || cpuAfter === null || result.ok === 0
              ? null
              : Math.round(((cpuAfter - cpuBefore) / result.ok) * 1e6);
          const redis = diffCounts(redisBefore, await commandCounts(deps.redis));
          const tokenCalls = (await deps.sim.tokenCalls()) - tokensBefore;
          return { result, cpuUsPerRequest, redis, tokenCalls };
        };
        let sample = await measured();
        // Nothing answered and nothing failed: the subject got no CPU in the window (a machine loaded past its
        // cores, short runs), so nothing was measured. Once more, said in the progress; a real failure stays.
        if (sample.result.ok === 0 && sample.result.failed === 0) {
          deps.progress(`round ${round} ${phase} ${id}: no request completed in ${options.seconds[phase]} s; again`);
          sample = await measured();
        }
        const { result, cpuUsPerRequest, redis, tokenCalls } = sample;
        samples.push({ subject: id, phase, round, offeredRps, load: result, redis, tokenCalls, cpuUsPerRequest });
        deps.progress(describe(round, phase, id, result, offeredRps, cpuUsPerRequest));
      }
    }
  }
  return samples;
}

function fixedRate(samples: Sample[], reference: string): number {
  const rates = samples.filter((s) => s.subject === reference && s.phase === 'c50').map((s) => s.load.rps);
  return Math.max(1, Math.round(median(rates) / 2));
}

export function median(values: number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function describe(
  round: number,
  phase: Phase,
  id: string,
  r: LoadResult,
  offered: number | null,
  cpu: number | null,
): string {
  const rate = offered === null ? '' : ` @${offered}/s`;
  const failed = r.failed > 0 ? `, ${r.failed} FAILED` : '';
  return `round ${round} ${phase}${rate} ${id}: ${Math.round(r.rps)} req/s, p50 ${r.p50Ms.toFixed(3)} ms, p99 ${r.p99Ms.toFixed(3)} ms, ${cpu ?? '?'} us CPU/req${failed}`;
}
