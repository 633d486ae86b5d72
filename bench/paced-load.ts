import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import type { LoadResult } from './load.js';
import type { Target } from './subjects.js';

/**
 * Open-loop load at a steady rate, for the fixed-rate phase. autocannon's rate limit hands each
 * connection a quota per wall-clock second, so all connections fire together at each second boundary
 * and the "fixed rate" becomes one burst a second. Here request i is sent at start + i/rate whatever
 * earlier requests are doing (open loop), and its latency counts from that call, including any wait
 * for a free connection, so a slow server is charged for the queue it causes. Keep-alive connections,
 * no pipelining, credentials rotated as in runLoad.
 */
export async function runPaced(
  target: Target,
  opts: { seconds: number; connections: number; rate: number },
): Promise<LoadResult> {
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  const seconds = await sendPaced(target, opts, (outcome, ms) => {
    if (typeof outcome === 'number' && outcome >= 200 && outcome < 300) {
      ok++;
      latencies.push(ms);
    } else failed++;
  });
  return {
    seconds,
    ok,
    failed,
    rps: ok / seconds,
    p50Ms: at(latencies, 0.5),
    p90Ms: at(latencies, 0.9),
    p99Ms: at(latencies, 0.99),
  };
}

/**
 * The open loop itself: `seconds × rate` requests at even intervals, each outcome (the status, or the
 * client's error code, e.g. UND_ERR_HEADERS_TIMEOUT after 10 s) passed to `record` with its latency from
 * the send. Resolves with the seconds from the first send to the last answer.
 */
export async function sendPaced(
  target: Target,
  opts: { seconds: number; connections: number; rate: number },
  record: (outcome: number | string, ms: number) => void,
): Promise<number> {
  const url = new URL(target.url);
  const pool = new Pool(url.origin, { connections: opts.connections, pipelining: 1 });
  const path = `${url.pathname}${url.search}`;
  const values = target.credentials.values;
  const inFlight: Array<Promise<void>> = [];
  const send = (i: number): Promise<void> => {
    const sentAt = performance.now();
    return pool
      .request({
        path,
        method: 'GET',
        headers: { ...target.headers, [target.credentials.header]: values[i % values.length] as string },
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      })
      .then(async (res) => {
        await res.body.dump();
        record(res.statusCode, performance.now() - sentAt);
      })
      .catch((err: { code?: string }) => record(err.code ?? 'error', performance.now() - sentAt));
  };

  const total = Math.round(opts.seconds * opts.rate);
  const interval = 1000 / opts.rate;
  const start = performance.now();
  for (let i = 0; i < total;) {
    const now = performance.now();
    while (i < total && start + i * interval <= now) {
      inFlight.push(send(i));
      i++;
    }
    await sleep(1);
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - start) / 1000;
  await pool.close();
  return seconds;
}

/** The q-quantile of `values` (sorted here), NaN when empty. */
export function at(values: number[], q: number): number {
  values.sort((a, b) => a - b);
  return values.length === 0 ? NaN : (values[Math.min(values.length - 1, Math.floor(q * values.length))] as number);
}
