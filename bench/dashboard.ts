import { bff, type SubjectContext, type Target } from './subjects.js';

/**
 * The "dashboard" phase (issue 45): USERS users, each loading a page of WIDGETS widgets at once, each widget
 * firing one of QUERIES heavy installed queries (the simulator's `sleep`, HEAVY_MS long), page after page for
 * the phase's seconds. Run against the service with RELAY_COALESCE off and on (two processes, one after the
 * other, same simulator): the TigerGraph calls it caused and the widgets' latency. Coalescing is per
 * principal, so each user is a principal of their own (their own secret) and folds only their own widgets.
 */
export const USERS = 50;
export const WIDGETS = 8;
export const QUERIES = 3;
export const HEAVY_MS = 150;

export interface DashboardRun {
  coalescing: 'off' | 'on';
  /** USERS, or fewer when the run has fewer sessions (BENCH_SESSIONS; the smoke test's 5). */
  users: number;
  pages: number;
  widgets: number;
  tigergraphCalls: number;
  /** TigerGraph calls per widget request (1 without coalescing). */
  callsPerWidget: number;
  p50Ms: number;
  p99Ms: number;
  failed: number;
}

const XHR = { 'X-Requested-With': 'XMLHttpRequest' };
const PATH = '/query/social/sleep';

/** The widget `w` of a page: one of the QUERIES queries, the same mapping on every page. */
const widgetTarget = (w: number): string => `/api${PATH}?ms=${HEAVY_MS}&memMb=${(w % QUERIES) + 1}`;

async function queryCalls(restppUrl: string): Promise<number> {
  const counts = (await (await fetch(`${restppUrl}/__sim/counts`)).json()) as Record<string, number>;
  return counts[`GET ${PATH}`] ?? 0;
}

async function drive(target: Target, seconds: number, restppUrl: string): Promise<Omit<DashboardRun, 'coalescing'>> {
  const base = target.url.slice(0, target.url.indexOf('/api/'));
  const cookies = target.credentials.values.slice(0, USERS);
  const before = await queryCalls(restppUrl);
  const latencies: number[] = [];
  let failed = 0;
  let pages = 0;
  const until = performance.now() + seconds * 1000;
  const user = async (cookie: string): Promise<void> => {
    while (performance.now() < until) {
      await Promise.all(
        Array.from({ length: WIDGETS }, async (_, w) => {
          const t = performance.now();
          const res = await fetch(`${base}${widgetTarget(w)}`, { headers: { ...XHR, cookie } }).catch(() => null);
          if (res === null || res.status !== 200) failed++;
          await res?.arrayBuffer().catch(() => undefined);
          latencies.push(performance.now() - t);
        }),
      );
      pages++;
    }
  };
  await Promise.all(cookies.map(user));
  const calls = (await queryCalls(restppUrl)) - before;
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return {
    users: cookies.length,
    pages,
    widgets: latencies.length,
    tigergraphCalls: calls,
    callsPerWidget: latencies.length === 0 ? NaN : calls / latencies.length,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    failed,
  };
}

/** Both runs, off then on; each service process is stopped before the next starts. */
export async function runDashboard(ctx: SubjectContext, seconds: number, log: (line: string) => void) {
  const runs: DashboardRun[] = [];
  for (const coalescing of ['off', 'on'] as const) {
    log(`dashboard: coalescing ${coalescing}`);
    const subject = bff(`dashboard-${coalescing}`, `dashboard, coalescing ${coalescing}`, 'redis', {
      RELAY_COALESCE: coalescing === 'on' ? 'true' : 'false',
      // A page's 8 widgets at once, per user: within the per-session limit either way.
      RELAY_SESSION_CONCURRENCY: String(WIDGETS * 2),
    });
    const target = await subject.start(ctx);
    try {
      runs.push({ coalescing, ...(await drive(target, seconds, ctx.sim.restppUrl)) });
    } finally {
      await target.child.stop();
    }
  }
  return runs;
}

export function formatDashboard(runs: DashboardRun[]): string {
  const head = `dashboard: ${runs[0]?.users ?? USERS} users x ${WIDGETS} widgets, ${QUERIES} heavy queries (${HEAVY_MS} ms each)`;
  const rows = runs.map(
    (r) =>
      `  coalescing ${r.coalescing.padEnd(3)}  widgets ${String(r.widgets).padStart(6)}  TigerGraph calls ${String(r.tigergraphCalls).padStart(6)} (${r.callsPerWidget.toFixed(2)}/widget)  p50 ${r.p50Ms.toFixed(1)} ms  p99 ${r.p99Ms.toFixed(1)} ms  failed ${r.failed}`,
  );
  return [head, ...rows].join('\n');
}
