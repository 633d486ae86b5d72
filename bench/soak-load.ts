import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';

export interface LoadWindow {
  /** Seconds since the load began, at the window's end. */
  endSec: number;
  ok: number;
  failed: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * Open-loop load at a steady rate for as long as it runs (as bench/paced-load.ts, which runs a fixed
 * count): request i leaves at start + i/rate whatever earlier ones are doing, and its latency counts
 * from then, so a server that slows down is charged for its queue. `cookies` is read at every send, so
 * the churn can swap sessions in and out underneath. Latencies are kept per window of `windowSec`.
 */
export function holdLoad(opts: {
  url: string;
  headers: Record<string, string>;
  cookies: string[];
  rate: number;
  connections: number;
  windowSec: number;
}) {
  const url = new URL(opts.url);
  const pool = new Pool(url.origin, { connections: opts.connections, pipelining: 1 });
  const path = `${url.pathname}${url.search}`;
  const windows: LoadWindow[] = [];
  const failures: Record<string, number> = {};
  let latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  let running = true;
  const inFlight = new Set<Promise<void>>();

  const send = (i: number): Promise<void> => {
    const sentAt = performance.now();
    const cookie = opts.cookies[i % opts.cookies.length] as string;
    return pool
      .request({
        path,
        method: 'GET',
        headers: { ...opts.headers, cookie },
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      })
      .then(async (res) => {
        await res.body.dump();
        if (res.statusCode >= 200 && res.statusCode < 300) {
          ok++;
          latencies.push(performance.now() - sentAt);
        } else countFailure(String(res.statusCode));
      })
      .catch((err: Error & { code?: string }) => countFailure(err.code ?? err.name));
  };
  const countFailure = (kind: string): void => {
    failed++;
    failures[kind] = (failures[kind] ?? 0) + 1;
  };

  const start = performance.now();
  const closeWindow = (now: number, since: number): void => {
    const sorted = latencies.sort((a, b) => a - b);
    const at = (q: number) =>
      sorted.length === 0 ? NaN : (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number);
    windows.push({
      endSec: (now - start) / 1000,
      ok,
      failed,
      rps: ok / ((now - since) / 1000),
      p50Ms: at(0.5),
      p99Ms: at(0.99),
    });
    latencies = [];
    ok = 0;
    failed = 0;
  };

  let windowStart = start;
  const loop = (async () => {
    const interval = 1000 / opts.rate;
    for (let i = 0; running;) {
      const now = performance.now();
      while (start + i * interval <= now) {
        const p = send(i++);
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
      }
      if (now - windowStart >= opts.windowSec * 1000) {
        closeWindow(now, windowStart);
        windowStart = now;
      }
      await sleep(1);
    }
  })();

  return {
    windows,
    failures,
    async stop(): Promise<void> {
      running = false;
      await loop;
      await Promise.all(inFlight);
      // The last, partial window: its requests and failures count in the totals too.
      if (ok + failed > 0) closeWindow(performance.now(), windowStart);
      await pool.close();
    },
  };
}
