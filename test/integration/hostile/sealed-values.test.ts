import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCipheriv, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle } from '../../../src/simulator/types.js';
import { deleteKeysWithPrefix, uniquePrefix, sessionKey } from '../../helpers/redis-prefix.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { sidOf } from '../../helpers/cookies.js';
import { login } from '../multi-instance/cluster.js';
import { relayGet } from './hostile-rig.js';

/**
 * docs/architecture.md, "The hostile-user model": sealed values are bound to their session. Someone who can write one session's Redis record
 * (a leaked Redis password, a restored backup, a bug) copies another session's sealed secret or token
 * into it. Two real service processes share Redis: the first logs everyone in, the second (whose caches
 * never saw the originals) serves the requests after the copy.
 */
describe('hostile store writer: sealed values copied between sessions', () => {
  let sim: SimulatorHandle;
  let first: ServiceProcess;
  let second: ServiceProcess;
  let redis: Redis;
  const prefix = uniquePrefix('sealed');
  const key = randomBytes(32);

  beforeAll(async () => {
    sim = await startSimulator({});
    const env = {
      NODE_ENV: 'test',
      TG_RESTPP_URL: sim.restppUrl,
      TG_VERSION: sim.version,
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_PREFIX: prefix,
      SESSION_SECRET: randomBytes(32).toString('hex'),
      SESSION_ENCRYPTION_KEYS: `k1:${key.toString('base64')}`,
      COOKIE_SECURE: 'false',
      LOG_FLUSH_MS: '0',
    };
    [first, second] = await Promise.all([startServiceProcess(env, 30_000), startServiceProcess(env, 30_000)]);
    redis = new Redis('redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    await Promise.all([first?.kill(), second?.kill()]);
    await sim?.close();
    await deleteKeysWithPrefix(redis, prefix).catch(() => undefined);
    redis?.disconnect();
  });

  const secretFor = (label: string) => sim.createSecret({ alias: `${label}_${randomBytes(3).toString('hex')}` }).value;
  const sessionKeyOf = (sid: string): string => sessionKey(prefix, sid);
  const tokenKey = (sid: string) => `${prefix}tok:{${sid}}`;
  /** The bearer token of the last relayed /echo the data server saw. */
  const lastBearer = (): string | undefined => {
    const echo = sim
      .seen()
      .filter((r) => r.port === 'restpp' && r.path === '/echo')
      .at(-1);
    return String(echo?.headers['authorization'] ?? '').replace(/^Bearer /, '') || undefined;
  };

  it("when session A's sealed secret is copied into session B's record, then B gets 401 and A still works", async () => {
    const a = await login(first.url, secretFor('a'));
    const b = await login(first.url, secretFor('b'));
    const [sidA, sidB] = [sidOf(a), sidOf(b)];
    const recordA = JSON.parse((await redis.get(sessionKeyOf(sidA)))!) as { tg: { secret: string } };
    const recordB = JSON.parse((await redis.get(sessionKeyOf(sidB)))!) as { tg: { secret: string } };
    recordB.tg.secret = recordA.tg.secret;
    await redis.set(sessionKeyOf(sidB), JSON.stringify(recordB), 'KEEPTTL');
    await redis.del(tokenKey(sidB)); // B must unseal its secret to get a token

    const stolen = await relayGet(second.url, '/api/echo', b);
    expect(stolen).toEqual({ status: 401, code: 'not_authenticated' });
    expect(await redis.exists(sessionKeyOf(sidB))).toBe(0);
    expect((await relayGet(second.url, '/api/echo', a)).status).toBe(200);
  });

  /** A value as 0.1.x sealed it: `v1.<id>.…`, only the header authenticated, bound to no session. */
  function sealUnbound(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from('v1.k1'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [
      'v1',
      'k1',
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      body.toString('base64url'),
    ].join('.');
  }

  it('when a session still holds a secret sealed by 0.1.x (unbound), then it is refused with 401 session_expired, a planned re-login', async () => {
    const secret = secretFor('old');
    const old = await login(first.url, secret);
    const sid = sidOf(old);
    const record = JSON.parse((await redis.get(sessionKeyOf(sid)))!) as { tg: { secret: string } };
    record.tg.secret = sealUnbound(secret);
    await redis.set(sessionKeyOf(sid), JSON.stringify(record), 'KEEPTTL');
    await redis.del(tokenKey(sid));

    expect(await relayGet(second.url, '/api/echo', old)).toEqual({ status: 401, code: 'session_expired' });
    expect(await redis.exists(sessionKeyOf(sid))).toBe(0);
    const again = await login(first.url, secret);
    expect((await relayGet(second.url, '/api/echo', again)).status).toBe(200);
  });

  it("when session A's sealed token is copied into session C's token state, then C's requests never carry A's token", async () => {
    const a = await login(first.url, secretFor('a2'));
    const c = await login(first.url, secretFor('c'));
    const [sidA, sidC] = [sidOf(a), sidOf(c)];
    expect((await relayGet(second.url, '/api/echo', a)).status).toBe(200);
    const tokenA = lastBearer();
    expect(tokenA).toBeDefined();
    const stateA = await redis.hgetall(tokenKey(sidA));
    await redis.hset(tokenKey(sidC), stateA);

    const answer = await relayGet(second.url, '/api/echo', c);
    expect(answer.status).toBe(200);
    expect(lastBearer()).not.toBe(tokenA);
    // C minted its own token (with its own secret), replacing the copied state.
    expect((await redis.hget(tokenKey(sidC), 'f')) === stateA['f']).toBe(false);
    expect((await relayGet(second.url, '/api/echo', a)).status).toBe(200);
    expect(lastBearer()).toBe(tokenA);
  });
});
