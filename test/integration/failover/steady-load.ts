import { CSRF } from '../multi-instance/cluster.js';
import { loopLoad } from '../redis-ha/ha-load.js';

export interface Sample {
  session: number;
  start: number;
  end: number;
  /** 0 when no HTTP answer came (connection refused, reset or timed out). */
  status: number;
  code?: string;
}

/**
 * Every session sends one request at a time, each to the next instance (a balancer without
 * stickiness), pausing `pauseMs` between them: a steady, bounded load of logged-in users.
 */
export function steadyLoad(urls: string[], cookies: string[], options: { path: string; pauseMs: number }) {
  return loopLoad(
    cookies.map((cookie, session) => async (n: number): Promise<Sample> => {
      const start = Date.now();
      const sample: Sample = { session, start, end: start, status: 0 };
      try {
        const res = await fetch(`${urls[n % urls.length]}${options.path}`, {
          headers: { ...CSRF, Cookie: cookie },
          signal: AbortSignal.timeout(10_000),
        });
        const text = await res.text();
        sample.status = res.status;
        const code =
          res.status === 200 ? undefined : (JSON.parse(text || '{}') as { error?: { code?: string } }).error?.code;
        if (code) sample.code = code;
      } catch {
        // counted as status 0
      }
      sample.end = Date.now();
      return sample;
    }),
    options.pauseMs,
  );
}

export interface FailoverFigures {
  requests: number;
  /** Answered requests per second over the whole run. */
  rps: number;
  failed: number;
  /** Sessions (by index) that saw at least one failure. */
  sessionsHit: number[];
  /** From the start of the first failed request to the end of the last one, in seconds; 0 when none failed. */
  windowSec: number;
  firstFailureAt: number | null;
  lastFailureAt: number | null;
  /** The longest any request took, failed or not. */
  slowestMs: number;
  /** Kinds of failure and how many of each, e.g. {"503 store_unavailable": 40}. */
  kinds: Record<string, number>;
}

export function figures(samples: Sample[]): FailoverFigures {
  const failed = samples.filter((s) => s.status !== 200);
  const first = failed.length ? Math.min(...failed.map((s) => s.start)) : null;
  const last = failed.length ? Math.max(...failed.map((s) => s.end)) : null;
  const span = samples.length
    ? (Math.max(...samples.map((s) => s.end)) - Math.min(...samples.map((s) => s.start))) / 1000
    : 0;
  const kinds: Record<string, number> = {};
  for (const s of failed) {
    const kind = `${s.status} ${s.code ?? ''}`.trim();
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  return {
    requests: samples.length,
    rps: span > 0 ? Math.round(samples.length / span) : 0,
    failed: failed.length,
    sessionsHit: [...new Set(failed.map((s) => s.session))].sort((a, b) => a - b),
    windowSec: first === null ? 0 : Math.round((last! - first) / 100) / 10,
    firstFailureAt: first,
    lastFailureAt: last,
    slowestMs: Math.max(0, ...samples.map((s) => s.end - s.start)),
    kinds,
  };
}

/** Requests that started between `from` and `to` (the failover window): how many, how many failed, the p99 and the slowest. */
export function windowFigures(samples: Sample[], from: number, to: number) {
  const inWindow = samples.filter((s) => s.start >= from && s.start <= to);
  const ms = inWindow.map((s) => s.end - s.start).sort((a, b) => a - b);
  return {
    requests: inWindow.length,
    failed: inWindow.filter((s) => s.status !== 200).length,
    p99Ms: ms.length ? ms[Math.min(ms.length - 1, Math.ceil(ms.length * 0.99) - 1)]! : 0,
    slowestMs: ms.length ? ms[ms.length - 1]! : 0,
  };
}
