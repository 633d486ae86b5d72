import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { untilMatch } from '../../helpers/wait.js';

const DEFAULT_PASSWORD = `pw-default-${randomUUID()}`;
const BFF_PASSWORD = `pw-bff-${randomUUID()}`;

describe('Redis password and ACL user', () => {
  let redis: RedisServer;
  const rigs: Rig[] = [];
  const rigWith = async (env: Record<string, string>): Promise<Rig> => {
    const rig = await startRig({ store: redis.url, env });
    rigs.push(rig);
    return rig;
  };

  beforeAll(async () => {
    // The ACL user may only touch the rig's key prefix: a key the service wrote outside it would be refused.
    redis = await startRedisServer({
      args: [
        '--requirepass',
        DEFAULT_PASSWORD,
        '--user',
        'bff',
        'on',
        `>${BFF_PASSWORD}`,
        '~test:*',
        '&__redis__:invalidate',
        '+@all',
        '-@dangerous',
        '+info',
        // The same without the invalidation channel: the session cache cannot set up.
        '--user',
        'bare',
        'on',
        `>${BFF_PASSWORD}`,
        '~test:*',
        '+@all',
        '-@dangerous',
        '+info',
      ],
    });
  });
  afterAll(async () => {
    for (const rig of rigs) await rig.close();
    await redis?.stop();
  });

  test('when REDIS_PASSWORD is the server password, then login, relay and logout work', async () => {
    const rig = await rigWith({ REDIS_PASSWORD: DEFAULT_PASSWORD });
    const agent = await rig.login();
    expect((await agent.get('/api/echo')).status).toBe(200);
    expect((await agent.post('/auth/logout')).status).toBe(204);
    expect((await rig.agent().get('/readyz')).status).toBe(200);
  });

  test('when an ACL user limited to the key prefix and without dangerous commands is used, then the service works within it', async () => {
    const rig = await rigWith({ REDIS_USERNAME: 'bff', REDIS_PASSWORD: BFF_PASSWORD });
    // The documented ACL (docs/redis-ha.md) lets the session cache set up its tracking.
    await rig.service.stores.sessionCache!.whenServing();
    const agent = await rig.login();
    expect((await agent.get('/api/echo')).status).toBe(200);
    expect((await agent.get('/auth/session')).status).toBe(200);
    expect((await agent.post('/auth/logout')).status).toBe(204);
    expect((await agent.get('/api/echo')).status).toBe(401);

    const asBff = new Redis(redis.port, '127.0.0.1', { username: 'bff', password: BFF_PASSWORD, lazyConnect: true });
    try {
      await asBff.connect();
      expect(await asBff.keys(`${rig.prefix}*`).catch((err: Error) => err.message)).toMatch(/NOPERM/);
      expect(await asBff.set('elsewhere:x', '1').catch((err: Error) => err.message)).toMatch(/NOPERM/);
      expect(await asBff.exists(`${rig.prefix}dead:{x}`)).toBe(0);
    } finally {
      asBff.disconnect();
    }
  });

  test('when the ACL user may not subscribe to the invalidation channel, then the cache stays bypassed and the service works as without it', async () => {
    const rig = await rigWith({ REDIS_USERNAME: 'bare', REDIS_PASSWORD: BFF_PASSWORD });
    const agent = await rig.login();
    expect((await agent.get('/api/echo')).status).toBe(200);
    expect((await agent.get('/api/echo')).status).toBe(200);
    expect((await agent.post('/auth/logout')).status).toBe(204);
    expect((await agent.get('/api/echo')).status).toBe(401);
    expect(rig.service.stores.sessionCache!.serving()).toBe(false);
    const lookups = await rig.service.metrics.sessionCache.lookups.get();
    expect(lookups.values.filter((v) => v.value > 0).map((v) => v.labels.result)).toEqual(['bypass']);
    // The log reaches the rig through a stream: the line once it is there, and only one.
    await untilMatch('the tracking failure in the log', () => rig.logs(), /session cache tracking not set up/);
    expect(rig.logs().match(/session cache tracking not set up/g)).toHaveLength(1);
  });

  test('when the password is wrong, then requests get 503 store_unavailable and the log says why without the password', async () => {
    const wrong = `wrong-${randomUUID()}`;
    const rig = await rigWith({ REDIS_USERNAME: 'bff', REDIS_PASSWORD: wrong });
    const login = await rig.agent().post('/auth/login').send({ secret: rig.secret, graph: 'social' });
    expect(login.status).toBe(503);
    expect(login.body.error.code).toBe('store_unavailable');
    const ready = await rig.agent().get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.store).toBe('unavailable');

    await untilMatch('the outage in the log', () => rig.logs(), /"msg":"redis unavailable; reconnecting"/);
    const logs = rig.logs();
    expect(logs).toMatch(/"msg":"redis unavailable; reconnecting"/);
    expect(logs).toMatch(/WRONGPASS/);
    // Issue 43: the line names the fault and the settings that fix it, and /readyz says which.
    expect(logs).toMatch(
      /"fault":"redis_auth"[^\n]*"setting":"REDIS_USERNAME, REDIS_PASSWORD \(or the URL's user:password\)"/,
    );
    expect(ready.body.details?.store).toMatchObject({ fault: 'redis_auth', reason: 'credentials refused' });
    expect(logs).not.toContain(wrong);
    expect(logs).not.toContain(wrong.slice(6, 30));
    expect(login.text).not.toContain(wrong);
  });
});
