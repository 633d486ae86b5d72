import { randomBytes, randomUUID } from 'node:crypto';
import { createRedisStores } from '../../../src/store/create-stores.js';
import { createCipher } from '../../../src/crypto/crypto.js';
import { createRedisClient, type RedisClient } from '../../../src/store/redis/client.js';
import type { Stores } from '../../../src/store/types.js';
import { keySlot } from '../../helpers/key-slot.js';
import { deleteKeysWithPrefix, uniquePrefix, sessionKey } from '../../helpers/redis-prefix.js';
import { sessionExpiringIn } from '../../helpers/session-records.js';

const prefix = uniquePrefix('store-keys');
const cipher = createCipher([{ id: 'k1', key: randomBytes(32) }]);
let redis: RedisClient;
let stores: Stores;

beforeAll(async () => {
  redis = createRedisClient({ mode: 'standalone', url: 'redis://127.0.0.1:6379' });
  await redis.connect();
  stores = createRedisStores({ redis, prefix, cipher });
});
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  await stores.close();
});

/** Set just now with `ms`: at most ms, and not more than a generous second below it. */
function expectTtl(pttl: number, ms: number): void {
  expect(pttl).toBeLessThanOrEqual(ms);
  expect(pttl).toBeGreaterThan(ms - 1_000);
}

async function keysOf(pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000);
    found.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return found.sort();
}

test('when one session has all its state written, then the keys are exactly the contract names in one slot', async () => {
  const sid = randomUUID();
  await stores.sessionStore.set(sid, sessionExpiringIn(60_000, { graph: 'social' }));
  await stores.tokens.set(sid, { token: 'tok-1', expiresAt: 2_000_000_000, version: 1 }, 60_000);
  await stores.leases.acquire(sid, 'owner-1', 60_000);
  await stores.tombstones.mark(sid, 60_000);

  const expected = ['dead', 'lease', 'sess', 'tok'].map((kind) => `${prefix}${kind}:{${sid}}`);
  expect(await keysOf(`${prefix}*{${sid}}`)).toEqual(expected);
  expect(new Set(expected.map(keySlot)).size).toBe(1);
  expect(keySlot(expected[0]!)).toBe(keySlot(sid));
});

test('when the slot helper is checked against the Cluster spec vector, then it agrees', () => {
  // From the Redis Cluster specification: CRC16 of "123456789" is 0x31C3.
  expect(keySlot('123456789')).toBe(0x31c3);
  expect(keySlot('a{123456789}b')).toBe(0x31c3);
});

test('when a token is stored, then the raw key holds no clear token, only ciphertext and a fingerprint', async () => {
  const sid = randomUUID();
  const token = `tok-${randomBytes(12).toString('hex')}`;
  await stores.tokens.set(sid, { token, expiresAt: 2_000_000_000, version: 7 }, 60_000);
  const raw = await redis.hgetall(`${prefix}tok:{${sid}}`);
  expect(JSON.stringify(raw)).not.toContain(token);
  expect(raw.t).toMatch(/^v2\.k1\./);
  expect(raw).toMatchObject({ e: '2000000000', v: '7' });
});

test('when every kind of key is written, then each carries the TTL it was given', async () => {
  const sid = randomUUID();
  await stores.sessionStore.set(sid, sessionExpiringIn(30_000));
  await stores.tokens.set(sid, { token: 'tok-2', expiresAt: 2_000_000_000, version: 1 }, 20_000);
  await stores.leases.acquire(sid, 'owner', 5_000);
  await stores.tombstones.mark(sid, 40_000);
  await stores.rateLimiter.hit(`ip:${sid}`, 5, 15_000);

  expectTtl(await redis.pttl(sessionKey(prefix, sid)), 30_000);
  expectTtl(await redis.pttl(`${prefix}tok:{${sid}}`), 20_000);
  expectTtl(await redis.pttl(`${prefix}lease:{${sid}}`), 5_000);
  expectTtl(await redis.pttl(`${prefix}dead:{${sid}}`), 40_000);
  expectTtl(await redis.pttl(`${prefix}rl:ip:${sid}`), 15_000);
});

test('when sessions are recorded under a credential, then it is one sorted set and one hash with its own hash tag, a TTL and no more members than the ceiling', async () => {
  const credential = randomBytes(16).toString('base64url').slice(0, 22);
  for (let i = 0; i < 12; i++)
    await stores.credentialSessions.add(credential, randomUUID(), 1000 + i, { ttlMs: 25_000, cap: 4, ceiling: 8 }, 'i');
  const key = `${prefix}creds:{${credential}}`;
  const info = `${prefix}creds-info:{${credential}}`;
  expect(await keysOf(`${prefix}creds*`)).toEqual([info, key]);
  expect(keySlot(key)).toBe(keySlot(credential));
  expect(keySlot(info)).toBe(keySlot(credential));
  expect(await redis.type(key)).toBe('zset');
  expect(await redis.zcard(key)).toBe(8);
  expect(await redis.hlen(info)).toBe(8);
  expectTtl(await redis.pttl(key), 25_000);
  expectTtl(await redis.pttl(info), 25_000);
});

test('when the key that sealed a token is retired, then get treats the state as absent', async () => {
  const sid = randomUUID();
  await stores.tokens.set(sid, { token: 'tok-old', expiresAt: 2_000_000_000, version: 1 }, 60_000);
  const rotated = createRedisStores({ redis, prefix, cipher: createCipher([{ id: 'k2', key: randomBytes(32) }]) });
  expect(await rotated.tokens.get(sid)).toBeNull();
  expect(await stores.tokens.get(sid)).toMatchObject({ token: 'tok-old' });
});

test('when a session is touched on reuse, then its Redis TTL slides back to the idle timeout', async () => {
  const idleMs = 60_000;
  const sid = randomUUID();
  const key = sessionKey(prefix, sid);
  await stores.sessionStore.set(sid, sessionExpiringIn(idleMs, { graph: 'social' }));
  expectTtl(await redis.pttl(key), idleMs);

  // As if most of the idle timeout had passed: time only shortens the key's TTL, so the TTL is moved instead.
  await redis.pexpire(key, idleMs / 4);
  expect(await stores.sessionStore.get(sid)).toMatchObject({ graph: 'social' });
  await stores.sessionStore.touch(sid, sessionExpiringIn(idleMs));
  // Without the touch the TTL would be a quarter of the idle timeout at most.
  expectTtl(await redis.pttl(key), idleMs);
});
