import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { request } from 'undici';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle, SimulatorOptions } from '../../../src/simulator/types.js';
import { ALICE, secretsOf, SIM_USERS } from '../admin/admin-harness.js';
import { uniquePrefix } from '../../helpers/redis-prefix.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { assertNoEscape, relayGet } from './hostile-rig.js';
import { dropPrefix, processEnv } from './process-env.js';
import { recordFigure } from '../../helpers/figures.js';

/**
 * Issue 21, item 2: one credential cannot open unbounded sessions. Real service processes on the machine's
 * Redis (own prefix) in front of the simulator, which counts live tokens (GET /__sim/tokens). Before the fix
 * every login of one secret left a live session, a live TigerGraph token and ~1.4 KB of Redis behind, until
 * a capped Redis filled and everyone got 503; successful logins were never counted.
 */
const REDIS_URL = 'redis://127.0.0.1:6379';
const CSRF = { 'x-requested-with': 'XMLHttpRequest' };

interface LoginAnswer {
  status: number;
  code?: string;
  retryAfter?: string;
  cookie?: string;
}

async function loginWith(base: string, body: Record<string, string>, from?: string): Promise<LoginAnswer> {
  const res = await request(`${base}/auth/login`, {
    method: 'POST',
    headers: { ...CSRF, 'content-type': 'application/json', ...(from && { 'x-forwarded-for': from }) },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  const setCookie = res.headers['set-cookie'];
  const first = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  const code = res.statusCode >= 400 ? (JSON.parse(text) as { error?: { code?: string } }).error?.code : undefined;
  const retryAfter = res.headers['retry-after'];
  return {
    status: res.statusCode,
    ...(code && { code }),
    ...(typeof retryAfter === 'string' && { retryAfter }),
    ...(first && { cookie: first.split(';')[0]! }),
  };
}

async function sessionStatus(base: string, cookie: string): Promise<number> {
  const res = await request(`${base}/auth/session`, { headers: { cookie } });
  await res.body.dump();
  return res.statusCode;
}

/** Live tokens the simulator holds for one secret, asked over its /__sim surface. */
async function liveTokensOf(sim: SimulatorHandle, alias: string): Promise<number> {
  const res = await request(`${sim.restppUrl}/__sim/tokens`);
  const tokens = (await res.body.json()) as Array<{ secretAlias: string }>;
  return tokens.filter((t) => t.secretAlias === alias).length;
}

/** Bytes of every key under the prefix (MEMORY USAGE), and how many keys of each kind. */
async function footprint(redis: Redis, prefix: string): Promise<{ bytes: number; kinds: Record<string, number> }> {
  let bytes = 0;
  const kinds: Record<string, number> = {};
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    for (const key of keys) {
      bytes += (await redis.memory('USAGE', key)) ?? 0;
      const kind = key.slice(prefix.length).split(/[:{]/)[0]!;
      kinds[kind] = (kinds[kind] ?? 0) + 1;
    }
    cursor = next;
  } while (cursor !== '0');
  return { bytes, kinds };
}

async function metricSum(instances: ServiceProcess[], pattern: RegExp): Promise<number> {
  let sum = 0;
  for (const instance of instances) {
    const text = await (await request(`${instance.metricsUrl!}/metrics`)).body.text();
    for (const line of text.split('\n')) if (pattern.test(line)) sum += Number(line.split(' ').pop());
  }
  return sum;
}

/** One service process over the machine's Redis (own prefix) in front of its own simulator, for a describe block. */
function serviceOverSimulator(
  label: string,
  env: Record<string, string>,
  simOptions: SimulatorOptions = {},
): { sim: SimulatorHandle; bff: ServiceProcess } {
  const rig = {} as { sim: SimulatorHandle; bff: ServiceProcess };
  const prefix = uniquePrefix(label);
  beforeAll(async () => {
    rig.sim = await startSimulator(simOptions);
    const upstream = { TG_RESTPP_URL: rig.sim.restppUrl, TG_GSQL_URL: rig.sim.gsqlUrl, TG_VERSION: rig.sim.version };
    rig.bff = await startServiceProcess({ ...processEnv(prefix), ...upstream, ...env }, 30_000);
  });
  afterAll(async () => {
    await rig.bff?.kill();
    await dropPrefix(prefix);
    await rig.sim?.close();
  });
  return rig;
}

// Three service processes in all (each start costs about a second of CPU): the two instances of the pile-up,
// which then also serve the concurrency test (their relay limits are not reached by the pile-up's one request
// at a time), and one for the login budget and the password pile-up (its cap of two is not what the budget
// counts). Each test has secrets of its own.
describe('hostile client: two instances, one Redis', () => {
  const CAP = 100; // SESSIONS_PER_CREDENTIAL's default
  const LOGINS = 150;
  let sim: SimulatorHandle;
  let instances: ServiceProcess[] = [];
  let redis: Redis;
  const prefix = uniquePrefix('session-pileup');
  let attacker: { alias: string; value: string };
  let other: { alias: string; value: string };

  beforeAll(async () => {
    sim = await startSimulator({});
    attacker = sim.createSecret({ alias: 'pileup_attacker' });
    other = sim.createSecret({ alias: 'pileup_other' });
    redis = new Redis(REDIS_URL);
    const env = {
      ...processEnv(prefix),
      TG_RESTPP_URL: sim.restppUrl,
      TG_VERSION: sim.version,
      // The login budgets are not what this test is about: raised, so only the session cap bounds.
      LOGIN_ADDRESS_BUDGET: '10000',
      LOGIN_CREDENTIAL_BUDGET: '10000',
      // For the concurrency test.
      RELAY_SESSION_CONCURRENCY: '2',
      RELAY_CREDENTIAL_CONCURRENCY: '3',
    };
    instances = await Promise.all([startServiceProcess(env, 30_000), startServiceProcess(env, 30_000)]);
  });
  afterAll(async () => {
    await Promise.all(instances.map((i) => i.kill()));
    await dropPrefix(prefix);
    redis?.disconnect();
    await sim?.close();
  });

  describe('one secret, many logins', () => {
    it('when one secret logs in 150 times over two instances, then at most SESSIONS_PER_CREDENTIAL sessions and tokens stay live, the oldest answer 401, another user is unaffected, and Redis stops growing', async () => {
      const bystander = await loginWith(instances[0]!.url, { secret: other.value, graph: 'social' });
      expect(bystander.status).toBe(200);
      const before = await footprint(redis, prefix);

      const cookies: string[] = [];
      for (let i = 0; i < LOGINS; i++) {
        const answer = await loginWith(instances[i % 2]!.url, { secret: attacker.value, graph: 'social' });
        expect(answer.status).toBe(200);
        cookies.push(answer.cookie!);
      }
      const afterFirst = await footprint(redis, prefix);

      // At most the cap of sessions and TigerGraph tokens are live: the 50 oldest were ended, on either instance.
      const statuses = await Promise.all(cookies.map((c, i) => sessionStatus(instances[(i + 1) % 2]!.url, c)));
      expect(statuses.slice(0, LOGINS - CAP).every((s) => s === 401)).toBe(true);
      expect(statuses.slice(LOGINS - CAP).every((s) => s === 200)).toBe(true);
      expect(await liveTokensOf(sim, attacker.alias)).toBeLessThanOrEqual(CAP);
      const evictedRelay = await relayGet(instances[0]!.url, '/api/echo', cookies[0]!);
      expect(evictedRelay).toMatchObject({ status: 401 });
      expect((await relayGet(instances[1]!.url, '/api/echo', cookies[LOGINS - 1]!)).status).toBe(200);

      // Another user's session relays as before, and that user still logs in.
      expect((await relayGet(instances[1]!.url, '/api/echo', bystander.cookie!)).status).toBe(200);
      const second = await loginWith(instances[1]!.url, { secret: other.value, graph: 'social' });
      expect(second.status).toBe(200);
      expect(await liveTokensOf(sim, other.alias)).toBe(2);
      // A logout takes its session off its credential's list at once (one list of 1 left, the attacker's of CAP).
      const logout = await request(`${instances[0]!.url}/auth/logout`, {
        method: 'POST',
        headers: { ...CSRF, cookie: second.cookie! },
      });
      expect(logout.statusCode).toBe(204);
      await logout.body.dump();
      const lists = await redis.keys(`${prefix}creds:*`);
      expect((await Promise.all(lists.map((k) => redis.zcard(k)))).sort((a, b) => a - b)).toEqual([1, CAP]);

      // Redis: a second round of 150 logins adds only what the evicted sessions leave (their tombstones,
      // which expire on their TTL), not a session's worth per login as before.
      for (let i = 0; i < LOGINS; i++)
        expect((await loginWith(instances[i % 2]!.url, { secret: attacker.value })).status).toBe(200);
      const afterSecond = await footprint(redis, prefix);
      const perLogin = (a: { bytes: number }, b: { bytes: number }) => Math.round((b.bytes - a.bytes) / LOGINS);
      recordFigure(
        `session pile-up: MEMORY USAGE under the prefix ${before.bytes} B → ${afterFirst.bytes} B after ${LOGINS} logins ` +
          `(${perLogin(before, afterFirst)} B/login) → ${afterSecond.bytes} B after ${LOGINS} more (${perLogin(afterFirst, afterSecond)} B/login); ` +
          `keys ${JSON.stringify(afterSecond.kinds)}; live attacker tokens ${await liveTokensOf(sim, attacker.alias)}`,
      );
      expect(afterSecond.kinds['sess']).toBe(CAP + 1);
      expect(afterSecond.kinds['tok']).toBeLessThanOrEqual(CAP + 1);
      expect(await liveTokensOf(sim, attacker.alias)).toBeLessThanOrEqual(CAP);
      expect(perLogin(afterFirst, afterSecond)).toBeLessThan(300);

      // Counted and logged, by a keyed id: never the secret.
      expect(await metricSum(instances, /^tgbff_sessions_evicted_total\{login="secret"\}/)).toBe(2 * LOGINS - CAP);
      const output = instances.map((i) => i.output()).join('\n');
      expect(output).toContain('sessions over the per-credential cap ended');
      expect(output).not.toContain(attacker.value);
      for (const instance of instances) assertNoEscape(instance);
    }, 120_000);
  });

  describe('one credential, many sessions, many requests', () => {
    it('when three sessions of one secret each send two slow requests at once, then only three are relayed and the rest get 429, while another secret is served', async () => {
      const shared = sim.createSecret({ alias: 'conc_shared' }).value;
      const alone = sim.createSecret({ alias: 'conc_alone' }).value;
      const sessions = [];
      for (let i = 0; i < 3; i++) sessions.push((await loginWith(instances[0]!.url, { secret: shared })).cookie!);
      const bystander = (await loginWith(instances[0]!.url, { secret: alone })).cookie!;
      // Every call answered 1.5 s late: the requests stay in flight together.
      sim.setFaults({ latencyMs: 1500 });
      const relayedBefore = sim.counts()['GET /echo'] ?? 0;

      const flood = Promise.all(
        sessions.flatMap((cookie) => [
          relayGet(instances[0]!.url, '/api/echo', cookie),
          relayGet(instances[0]!.url, '/api/echo', cookie),
        ]),
      );
      // Meanwhile another credential's session is served as usual.
      const other = relayGet(instances[0]!.url, '/api/echo', bystander);
      const answers = await flood;
      const served = answers.filter((a) => a.status === 200).length;
      const limited = answers.filter(
        (a) => a.status === 429 && a.code === 'too_many_requests' && a.retryAfter === '1',
      ).length;
      expect({ served, limited }).toEqual({ served: 3, limited: 3 });
      expect((await other).status).toBe(200);
      expect((sim.counts()['GET /echo'] ?? 0) - relayedBefore).toBe(4);
      sim.setFaults({});

      const metrics = await (await request(`${instances[0]!.metricsUrl!}/metrics`)).body.text();
      expect(metrics).toMatch(/tgbff_relay_limited_total\{scope="credential"\} 3/);
      assertNoEscape(instances[0]!);
    });
  });
});

describe('hostile client: one instance, default login budgets', () => {
  // Default budgets (LOGIN_CREDENTIAL_BUDGET 60, LOGIN_ADDRESS_BUDGET 120 per 60 s); X-Forwarded-For names the
  // address (the password logins come from loopback, another address, with a credential of their own).
  const rig = serviceOverSimulator(
    'budget-and-password',
    { TRUST_PROXY: 'loopback', PASSWORD_LOGIN: 'true', SESSIONS_PER_CREDENTIAL: '2' },
    SIM_USERS,
  );

  describe('the login budget counts successes too', () => {
    it('when one secret keeps logging in successfully, then the 61st login in a minute is 429 rate_limited from any address, and the address budget stops the 121st login from one address', async () => {
      const [one, two, three] = ['budget_one', 'budget_two', 'budget_three'].map(
        (alias) => rig.sim.createSecret({ alias }).value,
      );
      const from = '198.51.100.7';
      const answers: LoginAnswer[] = [];
      for (let i = 0; i < 61; i++) answers.push(await loginWith(rig.bff.url, { secret: one! }, from));
      expect(answers.slice(0, 60).every((a) => a.status === 200)).toBe(true);
      expect(answers[60]).toMatchObject({ status: 429, code: 'rate_limited' });
      expect(Number(answers[60]!.retryAfter)).toBeGreaterThanOrEqual(1);
      // Per credential, from every address together.
      expect(await loginWith(rig.bff.url, { secret: one! }, '203.0.113.9')).toMatchObject({
        status: 429,
        code: 'rate_limited',
      });

      // The address has spent 60 of its 120: another secret gets the other 60, then the address is spent.
      for (let i = 0; i < 60; i++) expect((await loginWith(rig.bff.url, { secret: two! }, from)).status).toBe(200);
      expect(await loginWith(rig.bff.url, { secret: three! }, from)).toMatchObject({
        status: 429,
        code: 'rate_limited',
      });
      expect((await loginWith(rig.bff.url, { secret: three! }, '203.0.113.9')).status).toBe(200);

      const metrics = await (await request(`${rig.bff.metricsUrl!}/metrics`)).body.text();
      expect(metrics).toMatch(/tgbff_login_budget_limited_total\{scope="credential"\} 2/);
      expect(metrics).toMatch(/tgbff_login_budget_limited_total\{scope="address"\} 1/);
      expect(rig.bff.output()).toContain('login budget spent');
      expect(rig.bff.output()).not.toContain(one!);
      assertNoEscape(rig.bff);
    });
  });

  describe('one TigerGraph user, many password logins', () => {
    it('when alice logs in 6 times with her password, then only her 2 newest sessions live and the secrets the service made for the others are dropped', async () => {
      const cookies: string[] = [];
      for (let i = 0; i < 6; i++) {
        const answer = await loginWith(rig.bff.url, {
          username: ALICE.name,
          password: ALICE.password,
          graph: 'social',
        });
        expect(answer.status).toBe(200);
        cookies.push(answer.cookie!);
      }
      const statuses = await Promise.all(cookies.map((c) => sessionStatus(rig.bff.url, c)));
      expect(statuses).toEqual([401, 401, 401, 401, 200, 200]);
      const made = (await secretsOf(rig.sim, ALICE)).filter((s) => s.alias.startsWith('tgbff_'));
      expect(made).toHaveLength(2);
      assertNoEscape(rig.bff);
    });
  });
});
