import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type supertest from 'supertest';
import { DEFAULT_RELAY_ALLOW } from '../../../src/relay/allowlist.js';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { startRedisCluster, type RedisClusterRig } from '../../helpers/redis-cluster.js';
import { until } from '../../helpers/wait.js';

/**
 * Issue 45, item 2: detached (GSQL-ASYNC) queries owned by the principal that started them. Two users with
 * secrets of their own (two principals) on one TigerGraph: neither can read, list or abort the other's
 * detached queries, by guessing an id, by copying one, through `requestid=all`, `showprocesslist` or odd
 * spellings of the parameters; a flood of starts stops at DETACHED_QUERIES_PER_PRINCIPAL. The same cases on
 * the machine's Redis and on a Cluster of three masters (the ownership key carries the principal's tag).
 */
const ALLOW = `${DEFAULT_RELAY_ALLOW},GET /query_status,GET /query_result,GET /abortquery,GET /showprocesslist`;
const CAP = 6;
const ASYNC = { 'GSQL-ASYNC': 'true' };

interface Started {
  id: string;
}

async function start(agent: supertest.Agent, query = 'sleep?ms=120000'): Promise<Started> {
  const res = await agent.get(`/api/query/social/${query}`).set(ASYNC).set('GSQL-TIMEOUT', '120000');
  expect(res.status).toBe(200);
  expect(typeof res.body.request_id).toBe('string');
  return { id: res.body.request_id as string };
}

const status = async (agent: supertest.Agent, query: string) => (await agent.get(`/api/query_status?${query}`)).body;
const statuses = (body: { results: Array<{ requestid: string; status: string }> }) =>
  Object.fromEntries(body.results.map((r) => [r.requestid, r.status]));
/** An id shaped like TigerGraph's that nobody started. */
const madeUp = (): string => `${Date.now() % 100_000}.RESTPP_1_1.${Date.now()}.N`;

function detachedCases(rigOf: () => Rig): void {
  let alice: supertest.Agent;
  let bob: supertest.Agent;
  let aliceRunning: Started;
  let aliceDone: Started;
  beforeAll(async () => {
    const rig = rigOf();
    const secretOf = (who: string) => rig.sim.createSecret({ alias: `${who}_${randomBytes(3).toString('hex')}` }).value;
    alice = await rig.login(secretOf('alice'));
    bob = await rig.login(secretOf('bob'));
    aliceRunning = await start(alice);
    aliceDone = await start(alice, 'hello?name=Alice');
    // Set-up holds: TigerGraph got GSQL-ASYNC, Alice sees her query run and her other one's result.
    const seen = rigOf()
      .sim.seen()
      .filter((s) => s.path === '/query/social/sleep');
    expect(seen.at(-1)?.headers['gsql-async']).toBe('true');
    expect(statuses(await status(alice, `requestid=${aliceRunning.id}`))).toEqual({ [aliceRunning.id]: 'running' });
    await until('alice’s hello finished', async () => {
      const body = (await alice.get(`/api/query_result?requestid=${aliceDone.id}`)).body;
      return body.error === false && body;
    });
  });

  test('when a user asks the status of an id that is not theirs, then it reads exactly as an id that never existed', async () => {
    const foreign = await status(bob, `requestid=${aliceRunning.id}`);
    const made = madeUp();
    const never = await status(bob, `requestid=${made}`);
    expect(foreign).toEqual({ ...never, unknown_requestid: [aliceRunning.id] });
    expect(foreign.results).toEqual([]);
  });

  test('when a user asks for the result of a copied id, then it reads as an unknown id and nothing goes upstream', async () => {
    const before = rigOf().sim.seen().length;
    const copied = await bob.get(`/api/query_result?requestid=${aliceDone.id}`);
    const made = madeUp();
    const never = await bob.get(`/api/query_result?requestid=${made}`);
    expect(copied.status).toBe(never.status);
    expect(JSON.stringify(copied.body).replace(aliceDone.id, 'ID')).toBe(
      JSON.stringify(never.body).replace(made, 'ID'),
    );
    expect(copied.body.results).toBeUndefined();
    expect(rigOf().sim.seen().length).toBe(before);
  });

  test('when a user lists with requestid=all, no requestid or showprocesslist, then only their own queries show', async () => {
    const bobs = await start(bob);
    for (const query of ['requestid=all', '', 'graph_name=social', 'requestid=ALL', 'RequestId=all']) {
      const listed = statuses(await status(bob, query));
      expect(listed).toEqual({ [bobs.id]: 'running' });
    }
    const ps = (await bob.get('/api/showprocesslist/social')).body.results as Array<{ requestid: string }>;
    expect(ps.map((p) => p.requestid)).toEqual([bobs.id]);
    const alicePs = (await alice.get('/api/showprocesslist/social')).body.results as Array<{ requestid: string }>;
    expect(alicePs.map((p) => p.requestid)).toEqual([aliceRunning.id]);
    await bob.get(`/api/abortquery/social?requestid=${bobs.id}`);
  });

  test('when a user aborts another’s id, or all, then only their own queries stop', async () => {
    const from = rigOf().sim.seen().length;
    const copied = await bob.get(`/api/abortquery/social?requestid=${aliceRunning.id}`);
    expect(copied.body.results).toEqual([{ aborted_queries: [] }]);
    const bobs = await start(bob);
    for (const query of ['requestid=all', '', 'REQUESTID=all']) {
      const all = await bob.get(`/api/abortquery/social${query === '' ? '' : `?${query}`}`);
      expect(all.status).toBe(200);
    }
    expect(statuses(await status(bob, `requestid=${bobs.id}`))).toEqual({ [bobs.id]: 'aborted' });
    expect(statuses(await status(alice, `requestid=${aliceRunning.id}`))).toEqual({ [aliceRunning.id]: 'running' });
    // What TigerGraph was asked to abort: ids of Bob's own only, never `all`, never Alice's.
    const aborts = rigOf()
      .sim.seen()
      .slice(from)
      .filter((seen) => seen.path === '/abortquery/social');
    expect(aborts.length).toBeGreaterThan(0);
    for (const seen of aborts) {
      const ids = new URLSearchParams(seen.query).getAll('requestid');
      expect(ids).toContain(bobs.id);
      expect(ids).not.toContain(aliceRunning.id);
      expect(ids).not.toContain('all');
      expect([...new URLSearchParams(seen.query).keys()].every((k) => k === 'requestid')).toBe(true);
    }
  });

  test('when parameters are spelt oddly (doubled, any case, escaped), then foreign ids stay unknown', async () => {
    const bobs = await start(bob);
    const a = encodeURIComponent(aliceRunning.id);
    const escapedId = [...aliceRunning.id].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
    for (const query of [
      `requestid=${bobs.id}&requestid=${a}`,
      `requestid=${a}&requestid=${a}`,
      `RequestID=${a}`,
      `%72equestid=${a}`,
      `requestid=${escapedId}`,
      `requestid=${a}&graph_name=social`,
    ]) {
      const body = await status(bob, query);
      expect(body.unknown_requestid).toEqual([aliceRunning.id]);
      expect(Object.keys(statuses(body))).not.toContain(aliceRunning.id);
    }
    expect((await bob.get(`/api/query%5Fstatus?requestid=${a}`)).body.unknown_requestid).toEqual([aliceRunning.id]);
    expect(
      (await bob.get(`/api/abortquery/social?url=${encodeURIComponent('/query/social/sleep.*')}`)).body.error.code,
    ).toBe('invalid_request');
    expect((await bob.get(`/api/query_status?requestid=${a}&requestid2=x`)).body.error.code).toBe('invalid_request');
    expect((await bob.get(`/api/query_result?requestid=${bobs.id}&requestid=${a}`)).body.error.code).toBe(
      'invalid_request',
    );
    expect((await bob.get(`/api/query_status?requestid=${a}%`)).body.error.code).toBe('invalid_request');
    expect(statuses(await status(alice, `requestid=${a}`))).toEqual({ [aliceRunning.id]: 'running' });
    await bob.get('/api/abortquery/social?requestid=all');
  });

  test('when ids are huge or too many, then they are unknown or refused, never sent upstream', async () => {
    const huge = 'x'.repeat(4000);
    const before = rigOf().sim.seen().length;
    expect((await status(bob, `requestid=${huge}`)).unknown_requestid).toEqual([huge]);
    expect((await bob.get(`/api/query_result?requestid=${huge}`)).body.error).toBe(true);
    const many = Array.from({ length: 101 }, (_, i) => `requestid=${i}`).join('&');
    expect((await bob.get(`/api/query_status?${many}`)).body.error.code).toBe('invalid_request');
    expect(rigOf().sim.seen().length).toBe(before);
  });

  test('when a user starts more detached queries than the cap, then the next is 429 and never reaches TigerGraph', async () => {
    const rig = rigOf();
    const carol = await rig.login(rig.sim.createSecret({ alias: `carol_${randomBytes(3).toString('hex')}` }).value);
    for (let i = 0; i < CAP; i++) await start(carol, 'hello');
    const starts = () => rig.sim.seen().filter((s) => s.path === '/query/social/hello').length;
    const before = starts();
    const refused = await carol.get('/api/query/social/hello').set(ASYNC);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('quota_exceeded');
    expect(starts()).toBe(before);
    // Another principal is not held back by Carol's flood.
    await start(bob, 'hello');
  });

  test('when GSQL-ASYNC is malformed, then it is 400 naming the header', async () => {
    const res = await bob.get('/api/query/social/hello').set('GSQL-ASYNC', 'yes');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('GSQL-ASYNC');
  });

  afterAll(async () => {
    await alice?.get('/api/abortquery/social?requestid=all');
  });
}

describe('detached queries owned, on the machine’s Redis', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({
      label: 'detached',
      env: {
        DETACHED_QUERIES: 'true',
        DETACHED_QUERIES_PER_PRINCIPAL: String(CAP),
        RELAY_ALLOW: ALLOW,
        QUERY_TIMEOUT_MAX_MS: '300000',
      },
    });
  });
  afterAll(() => rig?.close());

  detachedCases(() => rig);

  test('when queries were started, refused and foreign ids asked, then tgbff_detached_queries_total counts each', async () => {
    const text = await rig.service.metrics.registry.getSingleMetricAsString('tgbff_detached_queries_total');
    const value = (event: string) => Number(new RegExp(`event="${event}"} (\\d+)`).exec(text)?.[1] ?? 0);
    expect(value('started')).toBeGreaterThanOrEqual(CAP + 3);
    expect(value('refused')).toBe(1);
    expect(value('foreign')).toBeGreaterThanOrEqual(5);
  });

  test('when an id is recorded, then its key is the principal’s, tagged, with a TTL of at most DETACHED_QUERY_TTL', async () => {
    const redis = rig.redis();
    const keys = await redis.keys(`${rig.prefix}detached:{*}`);
    expect(keys.length).toBeGreaterThanOrEqual(3);
    for (const key of keys) {
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(3600 * 1000);
    }
  });
});

describe('detached queries owned, on Redis Cluster', () => {
  let cluster: RedisClusterRig;
  let rig: Rig;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    rig = await startRig({
      store: { env: { REDIS_CLUSTER_NODES: cluster.nodeList } },
      env: {
        DETACHED_QUERIES: 'true',
        DETACHED_QUERIES_PER_PRINCIPAL: String(CAP),
        RELAY_ALLOW: ALLOW,
        QUERY_TIMEOUT_MAX_MS: '300000',
      },
    });
  });
  afterAll(async () => {
    await rig?.close();
    await cluster?.stop();
  });

  detachedCases(() => rig);
});

describe('detached queries with DETACHED_QUERIES off', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ label: 'detached-off', env: { RELAY_ALLOW: ALLOW } });
  });
  afterAll(() => rig?.close());

  test('when the setting is off, then GSQL-ASYNC is not forwarded and the paths are relayed as sent', async () => {
    const agent = await rig.login();
    const res = await agent.get('/api/query/social/hello').set(ASYNC);
    expect(res.body.results).toEqual([{ greeting: 'Hello, World!' }]);
    expect(rig.sim.seen().at(-1)?.headers['gsql-async']).toBeUndefined();
    await agent.get('/api/query_status?RequestId=all&x=1');
    expect(rig.sim.seen().at(-1)).toMatchObject({ path: '/query_status', query: 'RequestId=all&x=1' });
  });
});
