import autocannon from 'autocannon';
import type { Target } from './subjects.js';

export interface LoadResult {
  seconds: number;
  /** 2xx answers. */
  ok: number;
  /** Non-2xx answers plus connection errors and timeouts: anything here means a broken run. */
  failed: number;
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
}

/**
 * One autocannon run against a target, no pipelining. The requests rotate through the target's
 * credentials (one prepared request per session, so the load generator builds nothing per request).
 * Latencies come from autocannon's per-response event, which has sub-millisecond resolution; its own
 * histogram stores whole milliseconds, too coarse for overheads well under one.
 */
export async function runLoad(target: Target, opts: { seconds: number; connections: number }): Promise<LoadResult> {
  const { pathname, search } = new URL(target.url);
  const requests = target.credentials.values.map((value) => ({
    method: 'GET',
    path: `${pathname}${search}`,
    headers: { ...target.headers, [target.credentials.header]: value },
  }));
  const latencies: number[] = [];
  const instance = autocannon({
    url: target.url,
    connections: opts.connections,
    pipelining: 1,
    duration: opts.seconds,
    timeout: 10,
    requests,
  });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const result = await instance;
  latencies.sort((a, b) => a - b);
  const seconds = result.duration;
  const ok = result['2xx'];
  return {
    seconds,
    ok,
    failed: result.non2xx + result.errors + result.timeouts,
    rps: seconds > 0 ? ok / seconds : 0,
    p50Ms: percentile(latencies, 0.5),
    p90Ms: percentile(latencies, 0.9),
    p99Ms: percentile(latencies, 0.99),
  };
}

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}
