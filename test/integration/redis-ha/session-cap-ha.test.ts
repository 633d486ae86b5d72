import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { startRedisCluster, type RedisClusterRig } from '../../helpers/redis-cluster.js';
import { sentinelAppRig } from '../failover/sentinel-rig.js';

const CAP = 3;
const ENV = { SESSIONS_PER_CREDENTIAL: String(CAP) };

/**
 * SESSIONS_PER_CREDENTIAL on every store: 8 logins with one secret leave the 3 newest sessions and their
 * tokens; the 5 oldest are over (401) and their tokens deleted upstream. On Cluster the credential's record
 * and each session's keys sit in different slots (each key is used alone), so this is what proves it.
 */
async function oldestSessionsEnd(rig: Rig): Promise<void> {
  const before = new Set(rig.sim.tokens().map((t) => t.token));
  const agents = [];
  for (let i = 0; i < 8; i++) agents.push(await rig.login());
  const statuses = await Promise.all(agents.map(async (a) => (await a.get('/auth/session')).status));
  expect(statuses).toEqual([401, 401, 401, 401, 401, 200, 200, 200]);
  const ours = rig.sim.tokens().filter((t) => !before.has(t.token));
  expect(ours).toHaveLength(CAP);
  expect(
    rig.sim.seen().filter((r) => r.method === 'DELETE' && r.path === '/requesttoken').length,
  ).toBeGreaterThanOrEqual(8 - CAP);
}

describe('per-credential session cap on Redis Cluster', () => {
  let cluster: RedisClusterRig;
  let rig: Rig;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    rig = await startRig({ store: { env: { REDIS_CLUSTER_NODES: cluster.nodeList } }, env: ENV });
  });
  afterAll(async () => {
    await rig?.close();
    await cluster?.stop();
  });

  test('when one secret logs in 8 times, then its 5 oldest sessions end and their tokens are deleted', () =>
    oldestSessionsEnd(rig));
});

describe('per-credential session cap on Redis Sentinel', () => {
  const sentinel = sentinelAppRig({ env: ENV }, 40_000);

  test('when one secret logs in 8 times, then its 5 oldest sessions end and their tokens are deleted', () =>
    oldestSessionsEnd(sentinel.rig));
});

describe('per-credential session cap on the memory store', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ store: 'memory', env: ENV });
  });
  afterAll(() => rig?.close());

  test('when one secret logs in 8 times, then its 5 oldest sessions end and their tokens are deleted', () =>
    oldestSessionsEnd(rig));
});
