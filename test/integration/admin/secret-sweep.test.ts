import type { Redis } from 'ioredis';
import { createLogger } from '../../../src/observability/logger.js';
import { createService, type Service } from '../../../src/service.js';
import { createSecretApi } from '../../../packages/client/src/secret-api.js';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { ALICE, dropsSeen, secretsOf, SIM_USERS, startGate } from './admin-harness.js';
import { freePort } from '../../helpers/ports.js';
import { manualClock } from '../../helpers/clock.js';
import { until } from '../../helpers/wait.js';

const ABSOLUTE_S = 60;
const HOUR = 3_600_000;
const NOTHING_SWEPT = { dropped: 0, gone: 0, failed: 0 };
const env = {
  PASSWORD_LOGIN: 'true',
  LOGIN_RATE_LIMIT: '1000',
  SESSION_IDLE_TIMEOUT: '60',
  SESSION_ABSOLUTE_TIMEOUT: String(ABSOLUTE_S),
};

async function passwordLogin(rig: Rig): Promise<{ alias: string; agent: ReturnType<Rig['agent']> }> {
  const agent = rig.agent();
  const res = await agent.post('/auth/login').send({ username: ALICE.name, password: ALICE.password, graph: 'social' });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { alias: rig.sim.tokens().at(-1)!.secretAlias, agent };
}

const aliases = async (rig: Rig) => (await secretsOf(rig.sim, ALICE)).map((s) => s.alias);

describe('sweeping the secrets of sessions that expire without logout (Redis)', () => {
  const clock = manualClock();
  let rig: Rig;
  let redis: Redis;
  let gate: Awaited<ReturnType<typeof startGate>>;
  const dropsKey = () => `${rig.prefix}secret-drops`;
  beforeAll(async () => {
    // The service reaches the admin server through a gate the tests can shut; the gate starts first,
    // towards the port the simulator is then told to use.
    const gsqlPort = await freePort();
    gate = await startGate(`http://127.0.0.1:${gsqlPort}`);
    // A long interval: these tests run the sweep by hand, so no timer sweeps behind their back.
    rig = await startRig({
      sim: { ...SIM_USERS, gsqlPort },
      gsqlUrl: gate.url,
      env,
      now: clock.now,
      secretSweep: { intervalMs: HOUR, claimMs: 30_000 },
    });
    redis = rig.redis();
  });
  afterEach(() => gate.open());
  afterAll(async () => {
    await rig.close();
    await gate.close();
  });

  test('when a session passes its absolute timeout without logout, then the sweep drops its secret once and clears the entry', async () => {
    const { alias, agent } = await passwordLogin(rig);
    expect(await rig.service.sweeper!.sweep()).toEqual({ dropped: 0, gone: 0, failed: 0 });
    expect(await aliases(rig)).toContain(alias);

    clock.advance(ABSOLUTE_S * 1000 + 1);
    const expired = await agent.get('/api/echo');
    expect(expired.status).toBe(401);
    expect(await rig.service.sweeper!.sweep()).toEqual({ dropped: 1, gone: 0, failed: 0 });
    expect(await aliases(rig)).not.toContain(alias);
    expect(dropsSeen(rig.sim, alias)).toBe(1);
    expect(await redis.zcard(dropsKey())).toBe(0);
    // A later sweep finds nothing to do and calls nobody.
    expect(await rig.service.sweeper!.sweep()).toEqual({ dropped: 0, gone: 0, failed: 0 });
    expect(dropsSeen(rig.sim, alias)).toBe(1);
  });

  test('when the secret was already dropped (logout could not clear the entry), then the sweep just removes the entry', async () => {
    const { alias } = await passwordLogin(rig);
    const api = createSecretApi({ gsqlUrl: rig.sim.gsqlUrl, version: rig.sim.version });
    await api.dropSecret({ username: ALICE.name, password: ALICE.password }, 'social', alias);
    await api.close();
    clock.advance(ABSOLUTE_S * 1000 + 1);
    expect(await rig.service.sweeper!.sweep()).toEqual({ dropped: 0, gone: 1, failed: 0 });
    expect(await redis.zcard(dropsKey())).toBe(0);
  });

  test('when the admin server is unreachable during a sweep, then the entry waits out the retry delay and a later sweep drops it', async () => {
    const { alias } = await passwordLogin(rig);
    clock.advance(ABSOLUTE_S * 1000 + 1);
    gate.shut();
    expect(await rig.service.sweeper!.sweep()).toEqual({ dropped: 0, gone: 0, failed: 1 });
    gate.open();
    expect(await aliases(rig)).toContain(alias); // asked past the gate: the secret is still there
    // Claimed entries stay hidden for claimMs, so an admin server in trouble is not hammered.
    expect(await rig.service.sweeper!.sweep()).toEqual({ dropped: 0, gone: 0, failed: 0 });
    clock.advance(30_001);
    expect(await rig.service.sweeper!.sweep()).toEqual({ dropped: 1, gone: 0, failed: 0 });
    expect(await aliases(rig)).not.toContain(alias);
  });

  test('when the drop at logout cannot reach the admin server, then the entry is due at once and the next sweep drops the secret', async () => {
    const { alias, agent } = await passwordLogin(rig);
    gate.shut();
    expect((await agent.post('/auth/logout')).status).toBe(204);
    gate.open();
    expect(await aliases(rig)).toContain(alias);
    const [member, score] = await redis.zrange(dropsKey(), 0, 0, 'WITHSCORES');
    expect(JSON.parse(member!)[0]).toBe(alias);
    expect(Number(score)).toBeLessThanOrEqual(clock.now());
    expect(await rig.service.sweeper!.sweep()).toEqual({ dropped: 1, gone: 0, failed: 0 });
    expect(await aliases(rig)).not.toContain(alias);
    expect(await redis.zcard(dropsKey())).toBe(0);
  });
});

describe('two instances sweeping the same Redis', () => {
  const clock = manualClock();
  let rig: Rig;
  let other: Service;
  beforeAll(async () => {
    rig = await startRig({ sim: SIM_USERS, env, now: clock.now, secretSweep: { intervalMs: 25, claimMs: 30_000 } });
    other = await createService({
      config: rig.config,
      upstream: { restppUrl: rig.sim.restppUrl, gsqlUrl: rig.sim.gsqlUrl, version: rig.sim.version },
      logger: createLogger({ level: 'silent' }),
      now: clock.now,
      instanceId: 'second-instance',
      secretSweep: { intervalMs: 25, claimMs: 30_000 },
    });
  });
  afterAll(async () => {
    await other.close();
    await rig.close();
  });

  test('when sessions expire while both instances sweep every 25 ms, then every secret is dropped exactly once', async () => {
    const made: string[] = [];
    for (let i = 0; i < 6; i += 1) made.push((await passwordLogin(rig)).alias);
    // A whole pass of each instance (under the lease, so beside none of the timers' passes): nothing is due yet.
    for (const sweeper of [rig.service.sweeper!, other.sweeper!])
      expect(await until('a sweep pass under the lease', () => sweeper.sweep())).toEqual(NOTHING_SWEPT);
    expect(made.map((a) => dropsSeen(rig.sim, a))).toEqual(made.map(() => 0));

    clock.advance(ABSOLUTE_S * 1000 + 1);
    // And both sweep by hand at the same moment, on top of their timers.
    await Promise.all([rig.service.sweeper!.sweep(), other.sweeper!.sweep()]);
    const redis = rig.redis();
    await until('every drop to be settled', async () => (await redis.zcard(`${rig.prefix}secret-drops`)) === 0);
    // One more pass of each, under the lease: any pass still dropping (a second drop of a secret claimed
    // twice) held the lease, so it had ended before these began, and they find nothing left.
    for (const sweeper of [rig.service.sweeper!, other.sweeper!])
      expect(await until('a sweep pass under the lease', () => sweeper.sweep())).toEqual(NOTHING_SWEPT);
    expect(await redis.zcard(`${rig.prefix}secret-drops`)).toBe(0);
    expect(made.map((a) => dropsSeen(rig.sim, a))).toEqual(made.map(() => 1));
    expect(await aliases(rig)).toEqual(expect.not.arrayContaining(made));
  });
});

describe('sweeping with the embedded memory store', () => {
  test('when a session expires without logout, then the sweep drops its secret', async () => {
    const clock = manualClock();
    const rig = await startRig({
      sim: SIM_USERS,
      store: 'memory',
      env,
      now: clock.now,
      secretSweep: { intervalMs: HOUR },
    });
    try {
      const { alias } = await passwordLogin(rig);
      expect(await rig.service.sweeper!.sweep()).toEqual({ dropped: 0, gone: 0, failed: 0 });
      clock.advance(ABSOLUTE_S * 1000 + 1);
      expect(await rig.service.sweeper!.sweep()).toEqual({ dropped: 1, gone: 0, failed: 0 });
      expect(await aliases(rig)).not.toContain(alias);
      expect(dropsSeen(rig.sim, alias)).toBe(1);
    } finally {
      await rig.close();
    }
  });
});
