import { performance } from 'node:perf_hooks';
import { startRigOnOwnRedis, type OwnRedisRig, type Rig } from '../../helpers/app-rig.js';
import { watchCommands, type CommandWatch } from '../../helpers/redis-monitor.js';

// What a relayed request costs in Redis once the session is logged in and warm: nothing. The session and its
// tombstone come from the session cache (CLIENT TRACKING keeps it true), the token state is read once per
// memo period (30 s), and one touch per 1% of the idle timeout (a touch invalidates the cached record, so
// it is read once again after it). Only request-time commands under the rig's prefix are counted: the
// cache's set-up (CLIENT TRACKING, SUBSCRIBE) names no key and happens before the count starts.
describe('Redis commands on the relay hot path', () => {
  // A redis-server of its own: MONITOR on the shared one would see (and slow) every other test's commands.
  let own: OwnRedisRig;
  let rig: Rig;
  let watch: CommandWatch;
  beforeAll(async () => {
    own = await startRigOnOwnRedis();
    rig = own.rig;
    await rig.service.stores.sessionCache!.whenServing();
    watch = await watchCommands(own.redis.url, rig.prefix);
  });
  afterAll(async () => {
    watch.stop();
    await own.close();
  });

  const hits = async () =>
    (await rig.service.metrics.sessionCache.lookups.get()).values.find((v) => v.labels.result === 'hit')?.value ?? 0;

  test('when a warm session makes 20 requests, then none of them sends a Redis command', async () => {
    const agent = await rig.login();
    // Warm: the first request reads the session and touches it; the touch invalidates; the next reads again.
    for (let i = 0; i < 10; i++) {
      const before = await hits();
      expect((await agent.get('/api/echo')).status).toBe(200);
      if ((await hits()) > before) break;
    }
    await watch.reset();
    const started = performance.now();
    for (let i = 0; i < 20; i++) expect((await agent.get('/api/echo')).status).toBe(200);
    const elapsedMs = performance.now() - started;

    const names = (await watch.commands()).map(([name]) => name);
    // The idle timeout is 1800 s, so one touch per 18 s and the token state read once per 30 s; 20 requests
    // take far less on any machine, and then nothing at all reaches Redis.
    if (elapsedMs < 18_000) expect(names).toEqual([]);
    else expect(names.filter((n) => !['mget', 'pttl', 'expire', 'hgetall'].includes(n))).toEqual([]);
  });

  test('when a warm session asks for /auth/session, then that one request reads its record and tombstone from Redis (one MGET), and relayed requests still send none', async () => {
    const agent = await rig.login();
    for (let i = 0; i < 10; i++) {
      const before = await hits();
      expect((await agent.get('/api/echo')).status).toBe(200);
      if ((await hits()) > before) break;
    }
    await watch.reset();
    const started = performance.now();
    expect((await agent.get('/auth/session')).status).toBe(200);
    const session = (await watch.commands()).map(([name]) => name);
    for (let i = 0; i < 5; i++) expect((await agent.get('/api/echo')).status).toBe(200);
    const relayed = (await watch.commands()).slice(session.length).map(([name]) => name);
    const elapsedMs = performance.now() - started;

    // Only a relayed request may be answered from the cache (docs/architecture.md, "Which reads the cache
    // answers"): a session another instance ended would otherwise still read as live here until its
    // invalidation arrives. /auth/session also reads the token state (HGETALL), as it always did.
    expect(session.filter((n) => n !== 'expire')).toEqual(['mget', 'hgetall']);
    // That read left the cached record in place: the relayed requests after it send nothing (within a touch
    // window of 18 s; past it a touch and a re-read).
    if (elapsedMs < 18_000) expect(relayed).toEqual([]);
    else expect(relayed.filter((n) => !['mget', 'pttl', 'expire', 'hgetall'].includes(n))).toEqual([]);
  });

  test('when SESSION_CACHE is off, then each request costs one MGET as before', async () => {
    const off = await startRigOnOwnRedis({ env: { SESSION_CACHE: 'false' } });
    const offWatch = await watchCommands(off.redis.url, off.rig.prefix);
    try {
      expect(off.rig.service.stores.sessionCache).toBeUndefined();
      const agent = await off.rig.login();
      expect((await agent.get('/api/echo')).status).toBe(200);
      await offWatch.reset();
      for (let i = 0; i < 5; i++) expect((await agent.get('/api/echo')).status).toBe(200);
      const names = (await offWatch.commands()).map(([name]) => name);
      expect(names.filter((n) => n === 'mget')).toHaveLength(5);
    } finally {
      offWatch.stop();
      await off.close();
    }
  });

  test('when the session logs out, then the next request is refused although its token was just remembered', async () => {
    const login = await rig.agent().post('/auth/login').send({ secret: rig.secret, graph: 'social' });
    const cookie = String(login.headers['set-cookie']?.[0]).split(';')[0]!;
    const call = () => rig.agent().get('/api/echo').set('Cookie', cookie);
    expect((await call()).status).toBe(200);
    expect((await rig.agent().post('/auth/logout').set('Cookie', cookie)).status).toBe(204);

    const res = await call();
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('not_authenticated');
  });
});
