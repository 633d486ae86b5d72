import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startFaultProxy, type FaultProxy } from '../../helpers/fault-proxy.js';
import type { ServiceProcess } from '../../helpers/service-process.js';
import { entries, servedFromCaches, tokensSeen } from './cache-metrics.js';
import { call, CSRF, login, OPEN_LOGIN_LIMITS, startCluster, type Cluster } from './cluster.js';

// Issue 42, item 2: Redis behind a slow path (a TCP proxy, a mesh sidecar). Instances B and C reach Redis
// through a proxy that, once their caches are warm, holds back every chunk of their invalidation
// connections (the ones subscribed to __redis__:invalidate, named tgbff-invalidations) by
// INVALIDATION_DELAY_MS, so a logout at A reaches their session caches that much after A answered. Meanwhile
// neither may say the session is live on any route: the /auth routes read Redis (one MGET), only a relayed
// request may be answered from the cache. On the code before this change, GET /auth/session at B answered
// 200 `authenticated: true` for the logged-out session.

/**
 * Far longer than the few requests at B and C after A's answer take, even on a starved machine, so their
 * caches still hold the session when they answer (checked, not assumed: their entries gauges).
 */
const INVALIDATION_DELAY_MS = 2000;
/**
 * The heartbeat PING travels the delayed connection both ways (2 × the delay): the command timeout must not
 * take that for a silent Redis, which would flush the cache and hide what is tested.
 */
const COMMAND_TIMEOUT_MS = 8 * INVALIDATION_DELAY_MS;

async function logout(url: string, cookie: string): Promise<number> {
  const res = await fetch(`${url}/auth/logout`, { method: 'POST', headers: { ...CSRF, Cookie: cookie } });
  await res.arrayBuffer();
  return res.status;
}

describe('a session logged out at A while B and C hear of it late (slow invalidation path)', () => {
  let cluster: Cluster;
  let proxy: FaultProxy;
  beforeAll(async () => {
    // A 60 s touch window (1 % of two hours, capped): no touch of the warmed session during the test.
    cluster = await startCluster({
      instances: 1,
      label: 'multi-slow-invalidation',
      env: { ...OPEN_LOGIN_LIMITS, SESSION_IDLE_TIMEOUT: '7200' },
    });
    proxy = await startFaultProxy({ port: 6379 });
    const behindProxy = { REDIS_URL: proxy.url('redis'), REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS) };
    await Promise.all([cluster.add(behindProxy), cluster.add(behindProxy)]);
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
    await proxy?.close();
  });

  test('when B and C serve the session from their caches and A logs it out, then /auth/session at B and /auth/sessions at C answer 401 at once, and the relay at both never reaches TigerGraph', async () => {
    const [a, b, c] = cluster.instances as [ServiceProcess, ServiceProcess, ServiceProcess];
    const cookie = await login(a.url, cluster.secret);
    const start = cluster.sim.seen().length;
    // Warmed while the path is fast: the warm-up's touch (a write) has been heard by both before the hit.
    await servedFromCaches([b, c], async (instance) => (await call(instance.url, '/api/echo', cookie)).status);
    const ended = tokensSeen(cluster, start);
    expect(ended.size).toBeGreaterThan(0);
    expect((await call(b.url, '/auth/session', cookie)).status).toBe(200);
    expect((await call(c.url, '/auth/sessions', cookie)).status).toBe(200);
    proxy.setWhere({ sent: /tgbff-invalidations/, mode: { kind: 'delay', ms: INVALIDATION_DELAY_MS } });

    expect(await logout(a.url, cookie)).toBe(204);
    const mark = cluster.sim.seen().length;
    // The set-up under test: both caches still hold the session, its invalidation is on the slow path.
    expect(await Promise.all([b, c].map(entries))).toEqual([1, 1]);
    const answers = await Promise.all([call(b.url, '/auth/session', cookie), call(c.url, '/auth/sessions', cookie)]);
    expect(answers.map((res) => [res.status, res.body.error?.code])).toEqual([
      [401, 'not_authenticated'],
      [401, 'not_authenticated'],
    ]);
    // Those reads found the end, so both caches dropped the session: the relay is refused before TigerGraph.
    expect(await Promise.all([b, c].map(entries))).toEqual([0, 0]);
    const relayed = await Promise.all([b, c].map((instance) => call(instance.url, '/api/echo', cookie)));
    expect(relayed.map((res) => [res.status, res.body.error?.code])).toEqual([
      [401, 'not_authenticated'],
      [401, 'not_authenticated'],
    ]);
    const after = cluster.sim.seen().slice(mark);
    expect(after.filter((seen) => seen.path.startsWith('/echo'))).toEqual([]);
    expect([...tokensSeen(cluster, mark)].filter((token) => ended.has(token))).toEqual([]);
  }, 120_000);
});
