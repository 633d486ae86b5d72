import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { startRedisCluster, type RedisClusterRig } from '../../helpers/redis-cluster.js';
import { sentinelAppRig } from '../failover/sentinel-rig.js';

/**
 * Issue 40 on every Redis mode: the per-principal index (two keys under one `{credential id}` tag, scripts
 * over both) lists and ends a person's sessions on Sentinel and on Cluster, where a script over keys of two
 * slots would fail.
 */
async function listAndEnd(rig: Rig): Promise<void> {
  const { value } = rig.sim.createSecret({ alias: `ha_${Date.now().toString(36)}` });
  const agents = [await rig.login(value), await rig.login(value), await rig.login(value), await rig.login(value)];
  const listed = (await agents[0]!.get('/auth/sessions')).body.sessions as Array<{ id: string; current: boolean }>;
  expect(listed).toHaveLength(4);
  // The newest is agents[3]: end it by its handle from agents[0].
  expect((await agents[0]!.delete(`/auth/sessions/${listed[0]!.id}`)).status).toBe(204);
  expect((await agents[3]!.get('/api/echo')).body.error.code).toBe('session_ended');
  expect((await agents[0]!.delete(`/auth/sessions/${listed[0]!.id}`)).status).toBe(404);
  expect((await agents[0]!.delete('/auth/sessions')).body).toEqual({ ended: 2 });
  for (const agent of agents.slice(1)) expect((await agent.get('/auth/session')).status).toBe(401);
  const left = (await agents[0]!.get('/auth/sessions')).body.sessions as Array<{ current: boolean }>;
  expect(left.map((s) => s.current)).toEqual([true]);
  expect((await agents[0]!.post('/auth/logout').send({ everywhere: true })).status).toBe(204);
  expect((await agents[0]!.get('/auth/session')).status).toBe(401);
}

describe('a person’s sessions on Redis Cluster', () => {
  let cluster: RedisClusterRig;
  let rig: Rig;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    rig = await startRig({ store: { env: { REDIS_CLUSTER_NODES: cluster.nodeList } } });
  });
  afterAll(async () => {
    await rig?.close();
    await cluster?.stop();
  });

  test('when a secret has four sessions, then they are listed, one ended by handle, the others but the current, then all', () =>
    listAndEnd(rig));
});

describe('a person’s sessions on Redis Sentinel', () => {
  const sentinel = sentinelAppRig({}, 60_000);

  test('when a secret has four sessions, then they are listed, one ended by handle, the others but the current, then all', () =>
    listAndEnd(sentinel.rig));
});
