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
  const url = new URL(target.url);
  const pool = new Pool(url.origin, { connections: opts.connections, pipelining: 1 });
  const path = `${url.pathname}${url.search}`;
  const values = target.credentials.values;
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
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
        if (res.statusCode >= 200 && res.statusCode < 300) {
          ok++;
          latencies.push(performance.now() - sentAt);
        } else failed++;
      })
      .catch(() => {
        failed++;
      });
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
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies.length === 0
      ? NaN
      : (latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] as number);
  return { seconds, ok, failed, rps: ok / seconds, p50Ms: at(0.5), p90Ms: at(0.9), p99Ms: at(0.99) };
}
