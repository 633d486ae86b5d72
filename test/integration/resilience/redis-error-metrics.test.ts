import { CSRF, startRigOnOwnRedis, untilReady, type OwnRedisRig, type Rig } from '../../helpers/app-rig.js';
import type { RedisServer } from '../../helpers/redis-server.js';
import { scrape } from '../observability/prom-text.js';

// A short failover bound: the first command after the kill waits it out before failing (the default 10 s is
// what made this file take 12 s); the counting claimed here is the same whatever the bound.
const FAILOVER_WAIT_MS = 1000;

describe('Redis error metrics when the service’s own Redis stops', () => {
  let own: OwnRedisRig;
  let redis: RedisServer;
  let rig: Rig;
  beforeAll(async () => {
    own = await startRigOnOwnRedis({ env: { STORE_FAILOVER_WAIT_MS: String(FAILOVER_WAIT_MS) } });
    ({ rig, redis } = own);
  });
  afterAll(() => own.close());

  test('when Redis is down, then each failed Redis round trip is counted, and nothing more once it is back', async () => {
    const agent = await rig.login();
    expect((await scrape(rig.service.metricsApp)).value('tgbff_redis_errors_total')).toBe(0);
    await redis.kill();
    const res = await agent.get('/api/echo');
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('store_unavailable');
    expect((await scrape(rig.service.metricsApp)).value('tgbff_redis_errors_total')).toBe(1); // the session load; nothing after it ran
    const login = await rig.agent().post('/auth/login').set(CSRF).send({ secret: rig.secret, graph: 'social' });
    expect(login.status).toBe(503);
    expect((await scrape(rig.service.metricsApp)).value('tgbff_redis_errors_total')).toBe(2); // the rate limiter's hit

    await redis.restart();
    expect(await untilReady(rig)).toBe(200);
    const afterOutage = (await scrape(rig.service.metricsApp)).value('tgbff_redis_errors_total');
    expect((await (await rig.login()).get('/api/echo')).status).toBe(200);
    expect((await scrape(rig.service.metricsApp)).value('tgbff_redis_errors_total')).toBe(afterOutage);
  });
});
