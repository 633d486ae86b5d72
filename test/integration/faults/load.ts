import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { CSRF } from '../multi-instance/cluster.js';

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
      // A fast error answer must not turn the loop into a busy spin that measures the test, not the service.
      if (sample.status !== 200) await sleep(20);
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
  for (;;) {
    const firstOk = load.samples
      .filter((s) => s.at >= liftedAt && s.status === 200)
      .reduce((min, s) => Math.min(min, s.at + s.ms), Infinity);
    const now = Date.now();
    if (now - liftedAt >= maxMs || now - firstOk >= afterOkMs) return;
    await sleep(50);
  }
}

/** Polls `url` every 50 ms from now until its status is `status`; resolves with the time it took. */
export async function timeUntilStatus(url: string, status: number, timeoutMs: number): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    const got = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) }).then(
      async (r) => (await r.arrayBuffer(), r.status),
      () => 0,
    );
    if (got === status) return Date.now() - start;
    await sleep(50);
  }
  return Infinity;
}
