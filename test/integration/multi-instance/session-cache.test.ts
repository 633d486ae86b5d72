import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { call, CSRF, login, startCluster, waitFor, type Cluster } from './cluster.js';
import {
  droppedBy,
  entries,
  metric,
  refusedEverywhere,
  servedFromCaches,
  tokensSeen,
  warmEverywhere,
} from './cache-metrics.js';
import { sidOf } from '../../helpers/cookies.js';
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

// The other ways a session ends, each while the session is warm in all three caches. Short timeouts, and a
// cap of one session per credential so a second login ends the first; each test has a secret of its own.
// The idle timeout is long enough that the warm-up's rounds fall inside one touch window (1 % of it):
// a touch invalidates the record everywhere, so shorter ones never leave all three caches holding it.
const IDLE_S = 10;
const ABSOLUTE_S = 14;

describe('the session cache over three instances, when a session ends other than by logout', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({
      instances: 3,
      label: 'multi-session-cache-ends',
      env: {
        SESSION_IDLE_TIMEOUT: String(IDLE_S),
        SESSION_ABSOLUTE_TIMEOUT: String(ABSOLUTE_S),
        SESSIONS_PER_CREDENTIAL: '1',
      },
    });
  }, 60_000);
  afterAll(() => cluster?.close());

  const freshSecret = () => cluster.sim.createSecret({ alias: `ends_${randomBytes(3).toString('hex')}` }).value;
  const sleepUntil = (epochMs: number) =>
    new Promise((resolve) => setTimeout(resolve, Math.max(0, epochMs - Date.now())));

  /** Logs in at A, warms the session in every cache, and returns its cookie and the tokens it used. */
  async function warmSession(secret: string): Promise<{ cookie: string; ended: Set<string> }> {
    const cookie = await login(cluster.instances[0]!.url, secret);
    const mark = cluster.sim.seen().length;
    await servedFromCaches(
      cluster.instances,
      async (instance) => (await call(instance.url, '/api/echo', cookie)).status,
    );
    const ended = tokensSeen(cluster, mark);
    expect(ended.size).toBeGreaterThan(0);
    return { cookie, ended };
  }

  test('when a warm session goes idle, then every instance refuses it from the moment its key expires', async () => {
    const { cookie, ended } = await warmSession(freshSecret());
    // The record's TTL is the idle timeout, slid by the warm-up's requests. No request until it runs out
    // (one would slide it again). Then the first request anywhere is refused: each cache kept the entry
    // for no longer than the PTTL it read with it (Redis's expiry invalidation may come later: its active
    // expiry samples keys). With both that cap and invalidations switched off, B answered 200 from its cache.
    const pttl = await cluster.redis.pttl(cluster.keys(sidOf(cookie)).session);
    expect(pttl).toBeGreaterThan(0);
    await sleepUntil(Date.now() + pttl + 5);
    await refusedEverywhere(cluster, cookie, ended);
  }, 40_000);

  test('when a warm session reaches its absolute timeout, then every instance refuses it from that moment', async () => {
    const before = Date.now();
    const { cookie, ended } = await warmSession(freshSecret());
    // Kept from idling out (a request at each instance every second) until just before its absolute end.
    const endsBy = before + ABSOLUTE_S * 1000;
    while (Date.now() < endsBy - 1500) {
      for (const instance of cluster.instances)
        expect((await call(instance.url, '/api/echo', cookie)).status).toBe(200);
      await sleepUntil(Math.min(Date.now() + 1000, endsBy - 1500));
    }
    const session = await call(cluster.instances[1]!.url, '/auth/session', cookie);
    const absoluteEnd = Date.parse(String(session.body.sessionExpiresAt));
    // The login time is in the record; the login was made just after `before`.
    expect(absoluteEnd - endsBy).toBeGreaterThanOrEqual(0);
    expect(absoluteEnd - endsBy).toBeLessThan(5000);
    await sleepUntil(absoluteEnd + 5);
    // Every cache still holds the record (its key lives on); the gate reads the login time from it, so
    // the first request after the absolute end is refused everywhere (without that check: 200).
    await refusedEverywhere(cluster, cookie, ended, ['session_expired', 'not_authenticated']);
  }, 40_000);

  test('when a second login of the credential at A ends the first session (one per credential), then B and C drop it and refuse it', async () => {
    const [a, b, c] = cluster.instances as [ServiceProcess, ServiceProcess, ServiceProcess];
    const secret = freshSecret();
    const { cookie, ended } = await warmSession(secret);
    await login(a.url, secret);
    const answered = performance.now();
    const tookMs = await droppedBy([b, c], answered);
    process.stdout.write(
      `cap eviction at A: B and C caches empty ${tookMs.toFixed(1)} ms after the login's answer (polled every 5 ms)\n`,
    );
    await refusedEverywhere(cluster, cookie, ended);
  });

  test('when a new login at A replaces the session of the same browser, then B and C drop the old one and refuse it', async () => {
    const [a, b, c] = cluster.instances as [ServiceProcess, ServiceProcess, ServiceProcess];
    const secret = freshSecret();
    const { cookie, ended } = await warmSession(secret);
    const res = await fetch(`${a.url}/auth/login`, {
      method: 'POST',
      headers: { ...CSRF, 'Content-Type': 'application/json', Cookie: cookie },
      body: JSON.stringify({ secret, graph: 'social' }),
    });
    await res.arrayBuffer();
    expect(res.status).toBe(200);
    const answered = performance.now();
    const tookMs = await droppedBy([b, c], answered);
    process.stdout.write(
      `replacing login at A: B and C caches empty ${tookMs.toFixed(1)} ms after the login's answer (polled every 5 ms)\n`,
    );
    await refusedEverywhere(cluster, cookie, ended);
  });
});
