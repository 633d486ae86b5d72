import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Cluster, Redis } from 'ioredis';
import type supertest from 'supertest';
import { credentialIds } from '../../../src/crypto/credential-id.js';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { startRedisCluster, type RedisClusterRig } from '../../helpers/redis-cluster.js';
import { until } from '../../helpers/wait.js';
import { login } from '../multi-instance/cluster.js';

const RATE = 5;
const BURST = 2;
/**
 * How long the data server takes over each of the two requests that fill QUOTA_CONCURRENCY: the third must
 * be sent and refused while they last, after a wait for them to be in flight that may itself wait for the CPU.
 */
const HELD_S = 3;

function policyFile(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'quota-'));
  const file = path.join(dir, 'policy.yaml');
  // The slow query: one per minute and one at a time per user, apart from everything else.
  writeFileSync(
    file,
    'rules:\n  - {name: slow, graph: social, query: sleep, rate: 1, window: 60, burst: 0, concurrency: 1}\n',
  );
  return file;
}

const ENV = {
  QUOTA_RATE: String(RATE),
  QUOTA_WINDOW: '60',
  QUOTA_BURST: String(BURST),
  QUOTA_BURST_WINDOW: '60',
  QUOTA_CONCURRENCY: '2',
  QUOTA_POLICY_FILE: policyFile(),
};

type Res = { status: number; body: { error?: { code: string; message: string } }; headers: Record<string, string> };
const code = (r: Res) => (r.status === 200 ? 200 : `${r.status} ${r.body.error?.code}`);

/** The same cases on each Redis mode: counts shared by every session of one credential, kept in Redis. */
function quotaCases(name: string, setup: () => Promise<{ rig: Rig; redis: Redis | Cluster; close(): Promise<void> }>) {
  describe(`per-user quota on ${name}`, () => {
    let rig: Rig;
    let redis: Redis | Cluster;
    let close: () => Promise<void>;
    let credOf: (secret: string) => string;
    beforeAll(async () => {
      ({ rig, redis, close } = await setup());
      credOf = (secret) => credentialIds(rig.config.session.secrets[0]!)('secret', secret);
    });
    afterAll(() => close?.());

    const fresh = async (): Promise<{ secret: string; a: supertest.Agent; b: supertest.Agent }> => {
      const { value } = rig.sim.createSecret({ alias: `q_${Math.random().toString(36).slice(2, 8)}` });
      return { secret: value, a: await rig.login(value), b: await rig.login(value) };
    };

    test('when one user sends more than its rate and burst from two sessions, then exactly rate + burst pass and the rest get 429 quota_exceeded with Retry-After', async () => {
      const user = await fresh();
      const other = await fresh();
      const answers: Res[] = [];
      for (let i = 0; i < RATE + BURST + 3; i++)
        answers.push((await (i % 2 ? user.b : user.a).get('/api/query/social/hello')) as unknown as Res);
      expect(answers.map(code)).toEqual([...Array(RATE + BURST).fill(200), ...Array(3).fill('429 quota_exceeded')]);
      const refused = answers.at(-1)!;
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(refused.body.error!.message).toMatch(
        /^This user's request quota is spent \(5 per 60 s, burst 2 per 60 s\)/,
      );
      // Another user's count is its own.
      expect((await other.a.get('/api/query/social/hello')).status).toBe(200);
      // The count lives in Redis under the credential's id (never the secret), with the window as its TTL.
      const key = `${rig.prefix}quota:default:${credOf(user.secret)}`;
      expect(Number(await redis.get(key))).toBeGreaterThanOrEqual(RATE);
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      const metrics = await rig.service.metrics.registry.getSingleMetricAsString('tgbff_quota_refused_total');
      expect(metrics).toMatch(/limit="rate",rule="default"} [3-9]/);
      expect(metrics).not.toContain(credOf(user.secret));
    });

    test('when the slow query has its own rule, then it is held to one a minute while other queries spend the default', async () => {
      const user = await fresh();
      expect((await user.a.get('/api/query/social/sleep?ms=1')).status).toBe(200);
      const second = (await user.b.get('/api/query/soci%61l/sleep?ms=1')) as unknown as Res; // an escaped spelling is the same query
      expect(code(second)).toBe('429 quota_exceeded');
      expect(second.body.error!.message).toMatch(/^This user's request quota for slow is spent \(1 per 60 s\)/);
      expect((await user.a.get('/api/query/social/hello')).status).toBe(200);
      expect(await redis.exists(`${rig.prefix}quota:slow:${credOf(user.secret)}`)).toBe(1);
    });

    test('when one user has more requests in flight than QUOTA_CONCURRENCY, then the extra get 429 too_many_requests; the slots come back when they end', async () => {
      const user = await fresh();
      const tag = `${rig.prefix}inflight:{${credOf(user.secret)}}`;
      // supertest sends on then(): start both now, one from each session.
      const slow = [user.a, user.b].map((agent) => agent.get(`/api/echo?sleep=${HELD_S}`).then((r) => r));
      // Wait until both are in flight (the set-up holds), then a third must be refused.
      await until('two requests of the user in flight', async () => (await redis.zcard(tag)) >= 2);
      const refused = (await user.a.get(`/api/echo?sleep=${HELD_S}`)) as unknown as Res;
      // The set-up still held when the third was judged: both were in flight throughout.
      expect(await redis.zcard(tag)).toBe(2);
      expect(code(refused)).toBe('429 too_many_requests');
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body.error!.message).toBe('More than 2 requests of this user are in flight across all instances');
      const answers = (await Promise.all(slow)) as unknown as Res[];
      expect(answers.map(code)).toEqual([200, 200]);
      // Released when each answer ended (the ZREM may land just after the browser has the answer).
      await until('both leases to be released', async () => (await redis.zcard(tag)) === 0);
      expect((await user.a.get('/api/echo')).status).toBe(200);
    });

    test('when a client aborts a request in flight, then its lease is given back at once, not at expiry', async () => {
      const user = await fresh();
      const tag = `${rig.prefix}inflight:{${credOf(user.secret)}}`;
      const base = await rig.listen();
      const cookie = await login(base, user.secret);
      const abort = new AbortController();
      const pending = fetch(`${base}/api/echo?sleep=5`, {
        headers: { 'X-Requested-With': 'XMLHttpRequest', Cookie: cookie },
        signal: abort.signal,
      }).catch(() => 'aborted');
      await until('the request to be in flight', async () => (await redis.zcard(tag)) >= 1);
      expect(await redis.zcard(tag)).toBe(1);
      abort.abort();
      expect(await pending).toBe('aborted');
      // Given back by the abort, not by expiry: the lease (QUOTA_LEASE_MS) still has most of its time.
      const leaseMs = rig.config.quota.leaseMs;
      await until('the lease to be given back', async () => (await redis.zcard(tag)) === 0, { timeoutMs: leaseMs / 2 });
    });
  });
}

quotaCases('standalone Redis', async () => {
  const rig = await startRig({ label: 'quota', env: ENV });
  const redis = rig.redis();
  return { rig, redis, close: () => rig.close() };
});

let cluster: RedisClusterRig | undefined;
quotaCases('Redis Cluster', async () => {
  cluster = await startRedisCluster();
  const rig = await startRig({ label: 'quota', store: { env: { REDIS_CLUSTER_NODES: cluster.nodeList } }, env: ENV });
  const redis = new Cluster(cluster.nodes.map((n) => ({ host: '127.0.0.1', port: n.port })));
  return {
    rig,
    redis,
    async close() {
      redis.disconnect();
      await rig.close();
      await cluster?.stop();
    },
  };
});
