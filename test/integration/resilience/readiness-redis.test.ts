import { startRigOnOwnRedis, untilReady, type OwnRedisRig, type Rig } from '../../helpers/app-rig.js';
import type { RedisServer } from '../../helpers/redis-server.js';

async function readyz(rig: Rig) {
  const started = performance.now();
  const res = await rig.agent().get('/readyz');
  return { status: res.status, body: res.body, headers: res.headers, ms: performance.now() - started };
}

describe('readiness when Redis goes away', () => {
  let own: OwnRedisRig;
  let redis: RedisServer;
  let rig: Rig;
  beforeAll(async () => {
    own = await startRigOnOwnRedis();
    ({ rig, redis } = own);
  });
  afterAll(() => own.close());

  test('when Redis and the data server answer, then /readyz is 200 with every check ok and /healthz is 200', async () => {
    const ready = await readyz(rig);
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { store: 'ok', upstream: 'ok' } });
    expect(ready.headers['cache-control']).toBe('no-store');
    const health = await rig.agent().get('/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
  });

  test('when Redis is stopped, then /readyz is 503 naming the store, /healthz stays 200, and readiness returns with Redis', async () => {
    await redis.kill();
    const down = await readyz(rig);
    expect(down.status).toBe(503);
    expect(down.body).toEqual({
      status: 'not_ready',
      reason: 'store unavailable',
      checks: { store: 'unavailable', upstream: 'ok' },
    });
    expect(down.ms).toBeLessThan(3000);
    expect((await rig.agent().get('/healthz')).status).toBe(200);

    await redis.restart();
    expect(await untilReady(rig)).toBe(200);
    expect((await readyz(rig)).body.checks).toEqual({ store: 'ok', upstream: 'ok' });
  });

  test('when Redis hangs (SIGSTOP), then /readyz answers 503 within its check bound instead of hanging', async () => {
    redis.pause();
    try {
      const hung = await readyz(rig);
      expect(hung.status).toBe(503);
      expect(hung.body.checks.store).toBe('unavailable');
      expect(hung.ms).toBeLessThan(3000);
    } finally {
      redis.resume();
    }
    expect(await untilReady(rig)).toBe(200);
  });
});
