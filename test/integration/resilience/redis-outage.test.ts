import type { RedisServer } from '../../helpers/redis-server.js';
import { startRigOnOwnRedis, untilReady, type OwnRedisRig, type Rig } from '../../helpers/app-rig.js';
import { until } from '../../helpers/wait.js';

describe('when Redis goes away', () => {
  let own: OwnRedisRig;
  let redis: RedisServer;
  let rig: Rig;
  beforeAll(async () => {
    // A short failover wait: "stopped" is answered 503 soon after it (the wait itself: failover-wait-http.test.ts).
    own = await startRigOnOwnRedis({ env: { STORE_FAILOVER_WAIT_MS: '300' } });
    ({ rig, redis } = own);
  });
  afterAll(() => own.close());

  async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
    const start = performance.now();
    const value = await fn();
    return { value, ms: performance.now() - start };
  }

  test('when Redis is stopped, then requests get 503 store_unavailable with Retry-After within about a second, and it recovers', async () => {
    const agent = await rig.login();
    expect((await agent.get('/api/echo')).status).toBe(200);

    await redis.kill();
    const { value: res, ms } = await timed(() => agent.get('/api/echo'));
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('store_unavailable');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(ms).toBeLessThan(1500);
    const login = await timed(() => rig.agent().post('/auth/login').send({ secret: rig.secret }));
    expect(login.value.status).toBe(503);
    expect(login.ms).toBeLessThan(1500);
    const ready = await rig.agent().get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.store).toBe('unavailable');

    // Redis comes back empty (no persistence): the service reconnects by itself; the old session is gone.
    await redis.restart();
    expect(await untilReady(rig)).toBe(200);
    expect((await agent.get('/api/echo')).status).toBe(401);
    const fresh = await rig.login();
    expect((await fresh.get('/api/echo')).status).toBe(200);
  });

  test('when a logout meets a frozen Redis, then the 503 store_unavailable answer clears the cookie, and the stored session outlives it', async () => {
    const agent = await rig.login();
    const probe = rig.redis();
    const sessionKeys = await probe.keys(`${rig.prefix}sess:*`);
    redis.pause();
    let res;
    try {
      res = await agent.post('/auth/logout');
    } finally {
      redis.resume();
    }
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('store_unavailable');
    const cleared = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    expect(cleared).toHaveLength(1);
    expect(cleared[0]).toMatch(new RegExp(`^${rig.config.session.cookieName}=;`));
    expect(cleared[0]).toMatch(/Expires=Thu, 01 Jan 1970/);
    expect(cleared[0]).toMatch(/Path=\/;.*HttpOnly; SameSite=Strict/);
    // The browser forgot it; the store did not hear of the logout, so the record stays until its idle timeout.
    expect((await agent.get('/auth/session')).status).toBe(401);
    expect(await probe.exists(...sessionKeys)).toBe(sessionKeys.length);
  });

  test('when Redis hangs (SIGSTOP), then requests get 503 within about a second, not a hang', async () => {
    const agent = await rig.login();
    redis.pause();
    try {
      const { value: res, ms } = await timed(() => agent.get('/api/echo'));
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('store_unavailable');
      expect(ms).toBeLessThan(2000);
    } finally {
      redis.resume();
    }
    await until('the session to be served again', async () => (await agent.get('/api/echo')).status === 200, {
      intervalMs: 100,
    });
  });
});
