import { randomBytes, randomUUID } from 'node:crypto';
import type { RedisStore } from 'connect-redis';
import type { SessionData } from 'express-session';
import type { Redis } from 'ioredis';
import { createRedisStores } from '../../../src/store/create-stores.js';
import { createCipher } from '../../../src/crypto/crypto.js';
import { createRedisClient, type RedisClient } from '../../../src/store/redis/client.js';
import type { Stores } from '../../../src/store/types.js';
import { connectRedisStore } from '../../helpers/express-session-era.js';
import { deleteKeysWithPrefix, uniquePrefix, sessionKey } from '../../helpers/redis-prefix.js';
import { sessionExpiringIn } from '../../helpers/session-records.js';

// Session records across the upgrade, at the store: 0.1.x kept them with connect-redis 8.1, which runs here
// for real as 0.1.x configured it (test/helpers/express-session-era.ts); this version must read and write
// the same bytes and TTLs.
const prefix = uniquePrefix('session-compat');
const FALLBACK = 1800;
let redis: RedisClient;
let stores: Stores;
let theirs: RedisStore;

beforeAll(async () => {
  redis = createRedisClient({ mode: 'standalone', url: 'redis://127.0.0.1:6379' });
  await redis.connect();
  stores = createRedisStores({
    redis,
    prefix,
    cipher: createCipher([{ id: 'k1', key: randomBytes(32) }]),
    sessionFallbackTtlSeconds: FALLBACK,
    sessionHotPath: { touchFraction: 0.01, maxTouchSkipMs: 60_000 },
  });
  theirs = connectRedisStore(raw(), prefix, FALLBACK);
});
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  await stores.close();
});

const key = (sid: string): string => sessionKey(prefix, sid);
const raw = (): Redis => redis as Redis;
/** Our records are express-session's SessionData in JSON; connect-redis's types want the class instance. */
const asSessionData = (record: object): SessionData => record as unknown as SessionData;
const idleRecord = (fields: Record<string, unknown>) => ({
  cookie: { originalMaxAge: null, expires: null, secure: true, httpOnly: true, path: '/', sameSite: 'strict' as const },
  ...fields,
});

test('when connect-redis 8 wrote a record, then the store reads it as written and slides the same TTL', async () => {
  const sid = randomUUID();
  const record = idleRecord({ tg: { secret: 'v2.k1.x', graph: 'social', createdAt: 1 } });
  await theirs.set(sid, asSessionData(record));
  expect(await raw().ttl(key(sid))).toBe(FALLBACK);

  expect(await stores.sessionStore.get(sid)).toEqual(record);
  await raw().expire(key(sid), 10);
  await stores.sessionStore.touch(sid, record);
  expect(await raw().ttl(key(sid))).toBe(FALLBACK);
  expect(await theirs.get(sid)).toEqual(record);
});

test('when the store writes a record, then connect-redis 8 reads the same bytes with the TTL it would have set', async () => {
  const ours = randomUUID();
  const other = randomUUID();
  for (const record of [idleRecord({ graph: 'social' }), sessionExpiringIn(90_000, { graph: 'social' })]) {
    await stores.sessionStore.set(ours, record);
    await theirs.set(other, asSessionData(record));
    expect(await raw().get(key(ours))).toBe(await raw().get(key(other)));
    expect(await raw().ttl(key(ours))).toBe(await raw().ttl(key(other)));
    expect(await theirs.get(ours)).toEqual(JSON.parse(JSON.stringify(record)));
  }
  await connectRedisStore(raw(), prefix, 120).touch(ours, asSessionData(idleRecord({})));
  expect(await raw().ttl(key(ours))).toBe(120);
});

test('when a record is written with a cookie expiry already passed, then it is deleted, as connect-redis does', async () => {
  const connectRedis = {
    set: (sid: string, record: object) => theirs.set(sid, asSessionData(record)),
    get: (sid: string): Promise<unknown> => theirs.get(sid),
  };
  for (const store of [stores.sessionStore, connectRedis]) {
    const sid = randomUUID();
    await store.set(sid, idleRecord({ graph: 'social' }));
    await store.set(sid, sessionExpiringIn(-1_000, { graph: 'social' }));
    expect(await raw().exists(key(sid))).toBe(0);
    expect(await store.get(sid)).toBeNull();
  }
});

test('when a stored record is not JSON, then the store reads no session rather than failing', async () => {
  const sid = randomUUID();
  await raw().set(key(sid), '{not json', 'EX', 60);
  expect(await stores.sessionStore.get(sid)).toBeNull();
});
