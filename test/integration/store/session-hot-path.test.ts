import { randomBytes, randomUUID } from 'node:crypto';
import { createRedisStores } from '../../../src/store/create-stores.js';
import { createCipher } from '../../../src/crypto/crypto.js';
import { createRedisClient, type RedisClient } from '../../../src/store/redis/client.js';
import type { Stores } from '../../../src/store/types.js';
import { deleteKeysWithPrefix, uniquePrefix, sessionKey } from '../../helpers/redis-prefix.js';
import { watchCommands, type CommandWatch } from '../../helpers/redis-monitor.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { sessionExpiringIn } from '../../helpers/session-records.js';

// A redis-server of its own: MONITOR on the shared one would see (and slow) every other test's commands.
let server: RedisServer;
const prefix = uniquePrefix('hot-path');
const cipher = createCipher([{ id: 'k1', key: randomBytes(32) }]);
let clock = 0;
let redis: RedisClient;
let stores: Stores;
let other: Stores;
let watch: CommandWatch;

beforeAll(async () => {
  server = await startRedisServer();
  const URL = server.url;
  redis = createRedisClient({ mode: 'standalone', url: URL });
  await redis.connect();
  const hot = { touchFraction: 0.01, maxTouchSkipMs: 60_000, clock: () => clock };
  stores = createRedisStores({ redis, prefix, cipher, sessionHotPath: hot });
  // A second "instance" on the same keys, with its own memory of loads and touches.
  const otherRedis = createRedisClient({ mode: 'standalone', url: URL });
  await otherRedis.connect();
  other = createRedisStores({ redis: otherRedis, prefix, cipher, sessionHotPath: hot });
  watch = await watchCommands(URL, prefix);
});
afterAll(async () => {
  watch.stop();
  await deleteKeysWithPrefix(redis, prefix);
  await other.close();
  await stores.close();
  await server.stop();
});
beforeEach(() => watch.reset());

const sessionKeyOf = (sid: string): string => sessionKey(prefix, sid);
const deadKey = (sid: string) => `${prefix}dead:{${sid}}`;

async function newSession(): Promise<string> {
  const sid = randomUUID();
  await stores.sessionStore.set(sid, sessionExpiringIn(100_000, { graph: 'social' }));
  await watch.reset();
  return sid;
}

test('when a session is loaded and its tombstone checked, then that costs one MGET of both keys', async () => {
  const sid = await newSession();
  const loaded = await stores.sessionStore.get(sid);
  expect(loaded).toMatchObject({ graph: 'social' });
  expect(await stores.tombstones.isDead(sid)).toBe(false);
  expect(await watch.commands()).toEqual([['mget', sessionKeyOf(sid), deadKey(sid)]]);
});

test('when another instance logged the session out, then it loads as absent and the tombstone check says dead', async () => {
  const sid = await newSession();
  await stores.sessionStore.get(sid);
  await other.tombstones.mark(sid, 60_000);
  expect(await stores.sessionStore.get(sid)).toBeNull();
  expect(await stores.tombstones.isDead(sid)).toBe(true);
});

test('when this instance marks a session dead right after loading it, then the tombstone check says dead at once', async () => {
  const sid = await newSession();
  await stores.sessionStore.get(sid);
  await stores.tombstones.mark(sid, 60_000);
  expect(await stores.tombstones.isDead(sid)).toBe(true);
});

test('when the load mark is older than the gap between load and check, then the check asks Redis again', async () => {
  const sid = await newSession();
  await stores.sessionStore.get(sid);
  clock += 1_000;
  await watch.reset();
  expect(await stores.tombstones.isDead(sid)).toBe(false);
  expect(await watch.commands()).toEqual([['exists', deadKey(sid)]]);
});

test('when touches of one session come closer than 1% of its TTL, then only the first reaches Redis', async () => {
  const sid = await newSession();
  const session = sessionExpiringIn(100_000, { graph: 'social' });
  for (let i = 0; i < 5; i++) {
    await stores.sessionStore.touch(sid, session);
    clock += 100; // 5 x 100 ms, inside the 1 s window of a 100 s TTL
  }
  expect((await watch.commands()).map(([name]) => name)).toEqual(['expire']);
  clock += 1_000;
  await stores.sessionStore.touch(sid, session);
  expect((await watch.commands()).map(([name]) => name)).toEqual(['expire', 'expire']);
  expect(await redis.pttl(sessionKeyOf(sid))).toBeGreaterThan(95_000);
});

test('when a touch finds no session, then the next touch still goes to Redis', async () => {
  const sid = randomUUID();
  const session = sessionExpiringIn(100_000);
  await stores.sessionStore.touch(sid, session);
  await stores.sessionStore.touch(sid, session);
  expect((await watch.commands()).map(([name]) => name)).toEqual(['expire', 'expire']);
});

test('when a session is written again or destroyed, then the next touch is not skipped', async () => {
  const sid = await newSession();
  const calls = stores.sessionStore;
  const session = sessionExpiringIn(100_000, { graph: 'social' });
  await calls.touch(sid, session);
  await calls.set(sid, session);
  await calls.touch(sid, session);
  expect((await watch.commands()).map(([name]) => name)).toEqual(['expire', 'set', 'expire']);
  await calls.destroy(sid);
  expect(await calls.get(sid)).toBeNull();
});
