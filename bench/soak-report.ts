import type { LoadWindow } from './soak-load.js';
import type { FdKinds } from './soak-probes.js';

/** One point of the run: a load window and what the BFF process and Redis looked like at its end. */
export interface Point {
  window: LoadWindow;
  rssMb: number | null;
  fds: number | null;
  fdKinds: FdKinds | null;
  /** CPU time of the BFF process per request in the window: unlike p99, not inflated by other processes' load. */
  cpuUsPerRequest: number | null;
  /** 1-minute load average of the machine at the window's end. */
  loadAverage: number;
  sessions: number;
  /** Redis used_memory above an empty server's, per live session. */
  redisBytesPerSession: number | null;
  /** MEMORY USAGE of the BFF's keys (sessions, tokens, tombstones, indexes) per live session. */
  keyBytesPerSession: number | null;
}

export interface Figures {
  rssMb: number | null;
  fds: number | null;
  /** Descriptors other than pooled upstream and client connections (Redis, listeners, files, pipes, leaks). */
  fixedFds: number | null;
  upstreamFds: number | null;
  p99Ms: number;
  rps: number;
  cpuUsPerRequest: number | null;
  loadAverage: number | null;
  redisBytesPerSession: number | null;
  keyBytesPerSession: number | null;
}

export interface Goal {
  name: string;
  limit: string;
  value: string;
  met: boolean;
}

/** Medians over a few windows: one window's p99 on a shared machine is too noisy to compare alone. */
export function figuresOf(points: Point[]): Figures {
  const med = (xs: Array<number | null>): number | null => {
    const sorted = xs.filter((x): x is number => x !== null && Number.isFinite(x)).sort((a, b) => a - b);
    return sorted.length === 0 ? null : (sorted[Math.floor(sorted.length / 2)] as number);
  };
  return {
    rssMb: med(points.map((p) => p.rssMb)),
    fds: med(points.map((p) => p.fds)),
    fixedFds: med(points.map((p) => (p.fdKinds ? p.fdKinds.redis + p.fdKinds.other : null))),
    upstreamFds: med(points.map((p) => p.fdKinds?.upstream ?? null)),
    p99Ms: med(points.map((p) => p.window.p99Ms)) ?? NaN,
    rps: med(points.map((p) => p.window.rps)) ?? NaN,
    cpuUsPerRequest: med(points.map((p) => p.cpuUsPerRequest)),
    loadAverage: med(points.map((p) => p.loadAverage)),
    redisBytesPerSession: med(points.map((p) => p.redisBytesPerSession)),
    keyBytesPerSession: med(points.map((p) => p.keyBytesPerSession)),
  };
}

const growth = (from: number | null, to: number | null): number | null =>
  from && to !== null ? (to - from) / from : null;
const pct = (x: number | null): string => (x === null ? 'n/a' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`);

/**
 * The issue's goals. Descriptors: pooled upstream and client connections open and close with the load's
 * concurrency (a stall of the machine opens more), so "no growth" is judged on all the others, and the
 * pool only on staying within its bound.
 */
export function checkGoals(start: Figures, end: Figures, failed: number, upstreamPool: number): Goal[] {
  const rss = growth(start.rssMb, end.rssMb);
  const p99 = growth(start.p99Ms, end.p99Ms);
  const fdGrowth = start.fixedFds === null || end.fixedFds === null ? null : end.fixedFds - start.fixedFds;
  const pooled = end.upstreamFds;
  return [
    { name: 'RSS growth', limit: '< 10 %', value: pct(rss), met: rss === null || rss < 0.1 },
    { name: 'p99 drift', limit: '< 20 %', value: pct(p99), met: p99 === null || p99 < 0.2 },
    {
      name: 'descriptor growth',
      limit: `≤ 0 and upstream ≤ ${upstreamPool}`,
      value: `${fdGrowth === null ? 'n/a' : `${fdGrowth >= 0 ? '+' : ''}${fdGrowth}`}, upstream ${pooled ?? 'n/a'}`,
      met: (fdGrowth === null || fdGrowth <= 0) && (pooled === null || pooled <= upstreamPool),
    },
    { name: 'failed requests', limit: '0', value: String(failed), met: failed === 0 },
  ];
}

export function describe(label: string, f: Figures): string {
  const kb = (x: number | null) => (x === null ? 'n/a' : `${(x / 1024).toFixed(2)} KiB`);
  return (
    `${label.padEnd(6)} RSS ${f.rssMb ?? 'n/a'} MB, p99 ${f.p99Ms.toFixed(2)} ms, ${Math.round(f.rps)} req/s, open fds ${f.fds ?? 'n/a'} (${f.fixedFds ?? 'n/a'} besides ${f.upstreamFds ?? 'n/a'} upstream and the client connections), ` +
    `CPU ${f.cpuUsPerRequest === null ? 'n/a' : Math.round(f.cpuUsPerRequest)} µs/req, load average ${f.loadAverage?.toFixed(1) ?? 'n/a'}, ` +
    `Redis per session ${kb(f.redisBytesPerSession)} (INFO used_memory), ${kb(f.keyBytesPerSession)} (its keys)`
  );
}

export function summaryLine(s: {
  minutes: number;
  rate: number;
  maxRps: number | null;
  requests: number;
  failed: number;
  sessions: number;
  logins: number;
  logouts: number;
  refreshes: number;
  start: Figures;
  end: Figures;
  goals: Goal[];
}): string {
  const met = s.goals.filter((g) => g.met).length;
  const kb = (x: number | null) => (x === null ? 'n/a' : (x / 1024).toFixed(2));
  return (
    `soak: ${s.minutes} min at ${Math.round(s.rate)} req/s (${s.maxRps === null ? 'given' : `half of max ${Math.round(s.maxRps)}`}), ` +
    `${s.requests} requests, failed ${s.failed}, ${s.sessions} sessions + ${s.logins} logins/${s.logouts} logouts, ${s.refreshes} refreshes; ` +
    `RSS ${s.start.rssMb}→${s.end.rssMb} MB (${s.goals[0]!.value}), p99 ${s.start.p99Ms.toFixed(2)}→${s.end.p99Ms.toFixed(2)} ms (${s.goals[1]!.value}), ` +
    `fds ${s.start.fds}→${s.end.fds}, besides pooled connections ${s.start.fixedFds}→${s.end.fixedFds} (${s.goals[2]!.value}), CPU ${Math.round(s.start.cpuUsPerRequest ?? NaN)}→${Math.round(s.end.cpuUsPerRequest ?? NaN)} µs/req, Redis ${kb(s.start.redisBytesPerSession)}→${kb(s.end.redisBytesPerSession)} KiB/session ` +
    `(keys ${kb(s.start.keyBytesPerSession)}→${kb(s.end.keyBytesPerSession)}); ` +
    `goals met ${met}/${s.goals.length}`
  );
}
