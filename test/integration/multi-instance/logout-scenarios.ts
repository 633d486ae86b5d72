import { expect } from '@jest/globals';
import { performance } from 'node:perf_hooks';
import type { ServiceProcess } from '../../helpers/service-process.js';
import { entries, metric, refusedEverywhere, tokensSeen, warmEverywhere } from './cache-metrics.js';
import { until } from '../../helpers/wait.js';
import { call, CSRF, login, type Cluster } from './cluster.js';

// Logout wins everywhere, as two scenarios over three instances, for any Redis mode. `cached`: the
// instances keep warm sessions in their session cache (standalone, Sentinel), so each scenario first
// warms every cache and then waits for the event (every cache dropped the session: their own metrics),
// not a sleep. Without it (Cluster, where the cache is off) there is nothing to wait for: the first
// request after the logout's answer must already be refused everywhere.

async function logout(url: string, cookie: string): Promise<number> {
  const res = await fetch(`${url}/auth/logout`, { method: 'POST', headers: { ...CSRF, Cookie: cookie } });
  await res.arrayBuffer();
  return res.status;
}

/** Every cookie answered 200 at every instance: warm in every cache when there is one. */
async function used(cluster: Cluster, cookies: string[], cached: boolean): Promise<void> {
  if (cached) return warmEverywhere(cluster, cookies);
  for (const instance of cluster.instances) {
    const answers = await Promise.all(cookies.map((cookie) => call(instance.url, '/api/echo', cookie)));
    expect(answers.map((a) => a.status)).toEqual(cookies.map(() => 200));
  }
}

/**
 * `count` sessions used on every instance log out all at once, each on an instance other than its login's.
 * Returns how long the logouts took to answer and, when cached, how long after that every cache was empty.
 */
export async function parallelLogouts(
  cluster: Cluster,
  { cached, count = 40 }: { cached: boolean; count?: number },
): Promise<{ answeredMs: number; droppedMs: number }> {
  const { instances } = cluster;
  if (cached) for (const instance of instances) expect(await entries(instance)).toBe(0);
  // Logins a few at a time (the logouts are what runs in parallel here).
  const cookies: string[] = [];
  for (let i = 0; i < count; i += 5) {
    const batch = Array.from({ length: 5 }, (_, j) => login(instances[(i + j) % 3]!.url, cluster.secret));
    cookies.push(...(await Promise.all(batch)));
  }
  const mark = cluster.sim.seen().length;
  await used(cluster, cookies, cached);
  const ended = tokensSeen(cluster, mark);
  expect(ended.size).toBeGreaterThan(0);

  const started = performance.now();
  const statuses = await Promise.all(cookies.map((cookie, i) => logout(instances[(i + 1) % 3]!.url, cookie)));
  expect(statuses).toEqual(cookies.map(() => 204));
  const answered = performance.now();
  if (cached)
    await until(
      'every cache to drop the ended sessions',
      async () => (await Promise.all(instances.map(entries))).every((n) => n === 0),
      { intervalMs: 20 },
    );
  const dropped = performance.now();
  await refusedEverywhere(cluster, cookies, ended);
  return { answeredMs: answered - started, droppedMs: dropped - answered };
}

/** One session's cookie used on all three instances; it logs out on the first; the other two refuse it. */
export async function copiedCookieLogout(cluster: Cluster, { cached }: { cached: boolean }): Promise<void> {
  const [a, b, c] = cluster.instances as [ServiceProcess, ServiceProcess, ServiceProcess];
  const cookie = await login(a.url, cluster.secret);
  const mark = cluster.sim.seen().length;
  await used(cluster, [cookie], cached);
  const ended = tokensSeen(cluster, mark);
  const invalidations = () =>
    Promise.all([b, c].map((i) => metric(i, 'tgbff_session_cache_invalidations_total', 'kind="key"')));
  const before = cached ? await invalidations() : [];

  expect(await logout(a.url, cookie)).toBe(204);
  // At A at once: its own write dropped the record before the answer left.
  expect((await call(a.url, '/api/echo', cookie)).status).toBe(401);
  // At B and C once their invalidation counters moved and their caches are empty.
  if (cached)
    await until('B and C to get the invalidation', async () => {
      const now = await invalidations();
      const held = await Promise.all([b, c].map(entries));
      return now.every((n, i) => n > before[i]!) && held.every((n) => n === 0);
    });
  await refusedEverywhere(cluster, cookie, ended, ['not_authenticated'], [b, c, a]);
}
