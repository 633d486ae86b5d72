import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import supertest from 'supertest';
import { CSRF, startRig, type Rig } from '../../helpers/app-rig.js';
import { basic } from '../admin/admin-harness.js';
import { startRedisCluster, type RedisClusterRig } from '../../helpers/redis-cluster.js';
import { sentinelAppRig } from '../failover/sentinel-rig.js';

/**
 * Issue 40 on every Redis mode: the per-principal index (two keys under one `{credential id}` tag, scripts
 * over both) lists and ends a person's sessions on Sentinel and on Cluster, where a script over keys of two
 * slots would fail; so does the operator's switch by alias, whose masked index is a key of its own.
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

/** The operator's switch by alias (3.x: the masked index, a key of its own fingerprint's slot) on the mode. */
async function byAlias(rig: Rig): Promise<void> {
  const alias = `ha_alias_${Date.now().toString(36)}`;
  const { value } = rig.sim.createSecret({ alias });
  const agents = [await rig.login(value), await rig.login(value)];
  const admin = (what: string, body: object) =>
    supertest(rig.service.app)
      .post(`/admin/sessions/${what}`)
      .set(CSRF)
      .set('Authorization', basic('tigergraph', 'tigergraph'))
      .send(body);
  const listed = await admin('list', { alias });
  expect(listed.body).toMatchObject({ match: 'masked', credentials: 1 });
  expect(listed.body.sessions).toHaveLength(2);
  expect((await admin('end', { alias })).body).toEqual({ ended: 2 });
  for (const agent of agents) expect((await agent.get('/auth/session')).body.error.code).toBe('session_ended');
}

const OPERATOR_ENV = { ADMIN_ROUTES: 'true', SESSION_OPERATORS: 'tigergraph' };

describe('a person’s sessions on Redis Cluster', () => {
  let cluster: RedisClusterRig;
  let rig: Rig;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    rig = await startRig({ store: { env: { REDIS_CLUSTER_NODES: cluster.nodeList } }, env: OPERATOR_ENV });
  });
  afterAll(async () => {
    await rig?.close();
    await cluster?.stop();
  });

  test('when a secret has four sessions, then they are listed, one ended by handle, the others but the current, then all', () =>
    listAndEnd(rig));

  test('when the operator names a secret by alias, then its sessions are listed and ended', () => byAlias(rig));
});

describe('a person’s sessions on Redis Sentinel', () => {
  const sentinel = sentinelAppRig({ env: OPERATOR_ENV }, 60_000);

  test('when a secret has four sessions, then they are listed, one ended by handle, the others but the current, then all', () =>
    listAndEnd(sentinel.rig));

  test('when the operator names a secret by alias, then its sessions are listed and ended', () =>
    byAlias(sentinel.rig));
});
