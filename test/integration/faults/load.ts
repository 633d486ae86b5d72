import { readFileSync } from 'node:fs';
import { CSRF } from '../multi-instance/cluster.js';
import { elapse, until } from '../../helpers/wait.js';

/** One relayed request of the steady load: when it started, how long it took, what came back. */
export interface Sample {
  at: number;
  ms: number;
  status: number;
  code?: string;
}

export interface Load {
  samples: Sample[];
  stop(): Promise<void>;
}

// Longer than any answer the contract allows (503 within about a second, 504 at the deadline): a hang shows as status 0.
const HANG_MS = 8000;

/** `concurrency` loops, each sending GET `path` with one of the cookies round-robin, until stop(). */
export function startLoad(baseUrl: string, cookies: string[], concurrency: number, path = '/api/echo'): Load {
  const samples: Sample[] = [];
  let running = true;
  let next = 0;
  const loop = async (): Promise<void> => {
    while (running) {
      const cookie = cookies[next++ % cookies.length]!;
      const at = Date.now();
      const sample: Sample = { at, ms: 0, status: 0 };
      try {
        const res = await fetch(`${baseUrl}${path}`, {
          headers: { ...CSRF, Cookie: cookie },
          signal: AbortSignal.timeout(HANG_MS),
        });
        const text = await res.text();
        sample.status = res.status;
        if (res.status >= 400) sample.code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
      } catch {
        sample.status = 0;
      }
      sample.ms = Date.now() - at;
      samples.push(sample);
      if (sample.status !== 200)
        await elapse(20, 'a fast error answer must not turn the loop into a busy spin measuring the test');
    }
  };
  const loops = Array.from({ length: concurrency }, loop);
  return {
    samples,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Resident set size of a process, from /proc (Linux), in MB. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return Math.round(kb / 102.4) / 10;
}

/**
 * How the load fared after a fault was lifted at `liftedAt`: the first success, and the share of
 * requests started after it (within `windowMs` of the lift) that succeeded.
 */
export function recovery(
  samples: Sample[],
  liftedAt: number,
  windowMs = 5000,
): { firstOkMs: number; okShare: number; n: number } {
  const after = samples.filter((s) => s.at >= liftedAt && s.at < liftedAt + windowMs);
  const firstOk = after.filter((s) => s.status === 200).reduce((min, s) => Math.min(min, s.at + s.ms), Infinity);
  const counted = after.filter((s) => s.at >= firstOk);
  const ok = counted.filter((s) => s.status === 200).length;
  return { firstOkMs: firstOk - liftedAt, okShare: counted.length ? ok / counted.length : 0, n: counted.length };
}

/**
 * Waits, after a fault was lifted at `liftedAt`, until the load has answered a request with 200 and then
 * run `afterOkMs` longer (the share that recovery() judges), or until `maxMs` from the lift, whichever is
 * first: a service that recovers at once is not watched for the whole bound.
 */
export async function untilRecovered(load: Load, liftedAt: number, afterOkMs = 1000, maxMs = 5000): Promise<void> {
  const firstOk = (): number =>
    load.samples
      .filter((s) => s.at >= liftedAt && s.status === 200)
      .reduce((min, s) => Math.min(min, s.at + s.ms), Infinity);
  // The event: the first success (or the bound from the lift, which recovery() then judges as missed).
  const leftMs = Math.max(0, liftedAt + maxMs - Date.now());
  const ok = await until('the load to be answered 200 after the lift', () => firstOk() !== Infinity || null, {
    timeoutMs: leftMs,
    intervalMs: 50,
  }).then(
    () => firstOk(),
    () => Infinity,
  );
  // Then a window of requests after it: time itself is what recovery() measures the share over.
  const windowMs = Math.min(ok + afterOkMs, liftedAt + maxMs) - Date.now();
  if (windowMs > 0) await elapse(windowMs, 'requests after the first success make the share recovery() judges');
}

/** Polls `url` every 50 ms from now until its status is `status`; resolves with the time it took (Infinity past `timeoutMs`). */
export async function timeUntilStatus(url: string, status: number, timeoutMs: number): Promise<number> {
  const start = Date.now();
  const got = (): Promise<number> =>
    fetch(url, { signal: AbortSignal.timeout(timeoutMs) }).then(
      async (r) => (await r.arrayBuffer(), r.status),
      () => 0,
    );
  return until(`${url} to answer ${status}`, async () => (await got()) === status, { timeoutMs, intervalMs: 50 }).then(
    () => Date.now() - start,
    () => Infinity,
  );
}
