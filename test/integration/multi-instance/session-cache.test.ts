import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { performance } from 'node:perf_hooks';
import { call, CSRF, login, startCluster, waitFor, type Cluster } from './cluster.js';
import { entries, metric, tokensSeen, warmEverywhere } from './cache-metrics.js';
import type { ServiceProcess } from '../../helpers/service-process.js';

// Three instances on one Redis, each with its session cache (SESSION_CACHE's default). A session warm in
// every cache is logged out on one instance; once the other instances' caches have dropped it (their own
// metrics say so: the event, not a sleep), a request there is refused and never reaches the data server
// with the ended session's token.
const SESSIONS = 40;

async function logout(url: string, cookie: string): Promise<number> {
  const res = await fetch(`${url}/auth/logout`, { method: 'POST', headers: { ...CSRF, Cookie: cookie } });
  await res.arrayBuffer();
  return res.status;
}

describe('the session cache over three instances', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({
      instances: 3,
      label: 'multi-session-cache',
      env: {
        LOGIN_RATE_LIMIT: '1000',
        LOGIN_ADDRESS_BUDGET: '1000',
        LOGIN_CREDENTIAL_BUDGET: '1000',
      },
    });
  }, 60_000);
  afterAll(() => cluster?.close());

  test('when 40 sessions warm on every instance log out in parallel, then every instance refuses them and the data server never sees their tokens again', async () => {
    const { instances } = cluster;
    for (const instance of instances) expect(await entries(instance)).toBe(0);
    // Logins a few at a time (the logouts are what runs in parallel here).
    const cookies: string[] = [];
    for (let i = 0; i < SESSIONS; i += 5) {
      const batch = Array.from({ length: 5 }, (_, j) => login(instances[(i + j) % 3]!.url, cluster.secret));
      cookies.push(...(await Promise.all(batch)));
    }
    const mark = cluster.sim.seen().length;
    await warmEverywhere(cluster, cookies);
    const ended = tokensSeen(cluster, mark);
    expect(ended.size).toBeGreaterThan(0);

    // Each logged out on an instance other than the one it logged in at, all at once.
    const started = performance.now();
    const statuses = await Promise.all(cookies.map((cookie, i) => logout(instances[(i + 1) % 3]!.url, cookie)));
    expect(statuses).toEqual(cookies.map(() => 204));
    const loggedOut = performance.now();
    // The event: every instance's cache has dropped every one of them (Redis's invalidations arrived).
    await waitFor('every cache to drop the ended sessions', async () =>
      (await Promise.all(instances.map(entries))).every((n) => n === 0),
    );
    const dropped = performance.now();
    process.stdout.write(
      `40 parallel logouts: answered in ${(loggedOut - started).toFixed(1)} ms; every cache empty ${(dropped - loggedOut).toFixed(1)} ms after the last answer (polled every 20 ms)\n`,
    );

    const after = cluster.sim.seen().length;
    for (const instance of instances) {
      const answers = await Promise.all(cookies.map((cookie) => call(instance.url, '/api/echo', cookie)));
      expect(answers.map((a) => a.status)).toEqual(cookies.map(() => 401));
    }
    const reused = [...tokensSeen(cluster, after)].filter((token) => ended.has(token));
    expect(reused).toEqual([]);
    expect(
      cluster.sim
        .seen()
        .slice(after)
        .filter((seen) => seen.path.startsWith('/echo')),
    ).toEqual([]);
  });

  test('when a copied cookie is warm on three instances and the session logs out on one, then the other two refuse it', async () => {
    const [a, b, c] = cluster.instances as [ServiceProcess, ServiceProcess, ServiceProcess];
    const cookie = await login(a.url, cluster.secret);
    const mark = cluster.sim.seen().length;
    await warmEverywhere(cluster, [cookie]);
    const ended = tokensSeen(cluster, mark);
    const invalidationsBefore = await Promise.all(
      [b, c].map((i) => metric(i, 'tgbff_session_cache_invalidations_total', 'kind="key"')),
    );

    expect(await logout(a.url, cookie)).toBe(204);
    // At A at once: its own write dropped the record before the answer left.
    expect((await call(a.url, '/api/echo', cookie)).status).toBe(401);
    // At B and C once their invalidation counters moved and their caches are empty.
    await waitFor('B and C to get the invalidation', async () => {
      const now = await Promise.all(
        [b, c].map((i) => metric(i, 'tgbff_session_cache_invalidations_total', 'kind="key"')),
      );
      const held = await Promise.all([b, c].map(entries));
      return now.every((n, i) => n > invalidationsBefore[i]!) && held.every((n) => n === 0);
    });
    const after = cluster.sim.seen().length;
    for (const instance of [b, c, a]) {
      const res = await call(instance.url, '/api/echo', cookie);
      expect(res.status).toBe(401);
      expect(res.body.error?.code).toBe('not_authenticated');
    }
    expect([...tokensSeen(cluster, after)].filter((token) => ended.has(token))).toEqual([]);
  });
});
