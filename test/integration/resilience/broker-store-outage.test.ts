import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createRedisStores } from '../../../src/store/create-stores.js';
import { createCipher } from '../../../src/crypto/crypto.js';
import { createRedisClient } from '../../../src/store/redis/client.js';
import type { Stores } from '../../../src/store/types.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { expectAppError } from '../tokens/expect-app-error.js';
import { INTO_REFRESH_WINDOW_MS, LIFETIME_SEC, SESSION_TTL_MS, newSid, startRig, type Rig } from '../tokens/rig.js';

// A private redis-server: these tests stop it, which the shared one must never be.
describe('token broker while Redis is down', () => {
  let server: RedisServer;
  let rig: Rig;
  let redisStores: Stores;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => server.stop());
  beforeEach(async () => {
    await server.restart();
    rig = await startRig({ store: 'memory', label: 'broker-outage' });
    const redis = createRedisClient({ mode: 'standalone', url: server.url, commandTimeoutMs: 300 });
    await redis.connect();
    redisStores = createRedisStores({
      redis,
      prefix: 'broker-outage:', // a private redis-server
      cipher: createCipher([{ id: 'test', key: randomBytes(32) }]),
    });
  });
  afterEach(async () => {
    await redisStores.close();
    await rig.close();
  });

  it('when the token store is unreachable, then 503 store_unavailable passes through', async () => {
    const broker = rig.broker({ tokens: redisStores.tokens, leases: redisStores.leases });
    const sid = newSid();
    await broker.token(sid, rig.secret, SESSION_TTL_MS);
    await server.stop();

    await expectAppError(broker.token(sid, rig.secret, SESSION_TTL_MS), 503, 'store_unavailable');
  });

  it('when the lease store is unreachable and the due token still works, then that token is used', async () => {
    const broker = rig.broker({ leases: redisStores.leases });
    const sid = newSid();
    const first = await broker.token(sid, rig.secret, SESSION_TTL_MS);
    rig.clock.advance(INTO_REFRESH_WINDOW_MS);
    await server.stop();
    rig.sim.resetCounts();

    expect(await broker.token(sid, rig.secret, SESSION_TTL_MS)).toEqual(first);
    expect(rig.tokenCalls()).toBe(0);
  });

  it('when the lease store is unreachable and the token has expired, then 503 store_unavailable', async () => {
    const broker = rig.broker({ leases: redisStores.leases });
    const sid = newSid();
    await broker.token(sid, rig.secret, SESSION_TTL_MS);
    rig.clock.advance((LIFETIME_SEC + 1) * 1000);
    await server.stop();

    await expectAppError(broker.token(sid, rig.secret, SESSION_TTL_MS), 503, 'store_unavailable');
  });
});
