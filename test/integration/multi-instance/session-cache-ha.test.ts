import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startRedisCluster, type RedisClusterRig } from '../../helpers/redis-cluster.js';
import { startSentinelGroup, type SentinelGroup } from '../../helpers/redis-sentinel.js';
import { entries, metric } from './cache-metrics.js';
import { OPEN_LOGIN_LIMITS, startCluster, type Cluster } from './cluster.js';
import { copiedCookieLogout, parallelLogouts } from './logout-scenarios.js';

// Issue 27's logout scenarios on the other Redis modes, three service processes each. Sentinel keeps the
// session cache (tracking on the master the sentinels name): every cache is warmed, then the logout must
// reach all of them. Cluster runs without it (docs/architecture.md, "The session cache": one MGET per
// request, as before the cache), so the first request after the logout's answer is refused everywhere.
// Both Redis set-ups spend most of their start waiting on gossip (the sentinels finding each other and the
// replica, the cluster's nodes agreeing): they are formed side by side, once, for the two blocks below.
let group: SentinelGroup;
let nodes: RedisClusterRig;
beforeAll(async () => {
  const formed = await Promise.allSettled([
    startSentinelGroup().then(async (g) => {
      group = g;
      await g.waitUntilReady();
    }),
    startRedisCluster().then((n) => {
      nodes = n;
    }),
  ]);
  const failed = formed.find((f) => f.status === 'rejected');
  if (failed) throw failed.reason;
});
afterAll(async () => {
  await Promise.all([group?.stop(), nodes?.stop()]);
});

describe('logout wins on every instance, Redis Sentinel with the session cache', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({
      instances: 3,
      label: 'multi-cache-sentinel',
      // A 60 s touch window, as in session-cache.test.ts: the 40 sessions' warm-up fits inside it.
      env: { ...OPEN_LOGIN_LIMITS, SESSION_IDLE_TIMEOUT: '7200' },
      store: {
        env: group.serviceEnv,
        inspect: group.client(await group.masterPort()),
      },
    });
  });
  afterAll(() => cluster?.close());

  test('when 40 sessions warm on every instance log out in parallel, then every instance refuses them', async () => {
    const { droppedMs } = await parallelLogouts(cluster, { cached: true });
    expect(droppedMs).toBeLessThan(10_000);
  }, 120_000);

  test('when a copied cookie is warm on three instances and logs out on one, then the other two refuse it', async () => {
    await copiedCookieLogout(cluster, { cached: true });
  });
});

describe('logout wins on every instance, Redis Cluster (no session cache)', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({
      instances: 3,
      label: 'multi-cache-cluster',
      env: OPEN_LOGIN_LIMITS,
      store: { env: { REDIS_CLUSTER_NODES: nodes.nodeList }, inspect: nodes.client(nodes.nodes[0]!.port) },
    });
  });
  afterAll(() => cluster?.close());

  test('when 40 sessions used on every instance log out in parallel, then every instance refuses them at once', async () => {
    await parallelLogouts(cluster, { cached: false });
  }, 120_000);

  test('when a copied cookie is used on three instances and logs out on one, then the other two refuse it at once', async () => {
    await copiedCookieLogout(cluster, { cached: false });
    // Nothing was served from a cache: on Cluster there is none.
    for (const instance of cluster.instances) {
      expect(await entries(instance)).toBe(0);
      expect(await metric(instance, 'tgbff_session_cache_lookups_total')).toBe(0);
    }
  });
});
