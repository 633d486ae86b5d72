import { randomBytes, randomUUID } from 'node:crypto';
import { createRedisStores } from '../../../src/store/create-stores.js';
import { createCipher } from '../../../src/crypto/crypto.js';
import { createRedisClient } from '../../../src/store/redis/client.js';
import { deleteKeysWithPrefix, uniquePrefix } from '../../helpers/redis-prefix.js';
import { storeConformance } from '../../helpers/store-conformance/store-conformance.js';
import { elapse } from '../../helpers/wait.js';

storeConformance('redis', async () => {
  const prefix = uniquePrefix('store-conformance');
  const redis = createRedisClient({ mode: 'standalone', url: 'redis://127.0.0.1:6379' });
  await redis.connect();
  const stores = createRedisStores({ redis, prefix, cipher: createCipher([{ id: 'k1', key: randomBytes(32) }]) });
  return {
    stores,
    // The cases' windows are a second and more (store-conformance/time.ts): long enough to hold on a loaded
    // machine, and what they wait here, where nothing else can move Redis's clock.
    pass: (ms) => elapse(ms, 'Redis expires keys by its own clock: the time must really pass'),
    dispose: async () => {
      await deleteKeysWithPrefix(redis, prefix);
      await stores.close();
    },
  };
});

describe('redis token state after a session ended', () => {
  const prefix = uniquePrefix('store-token-ended');
  const redis = createRedisClient({ mode: 'standalone', url: 'redis://127.0.0.1:6379' });
  const stores = createRedisStores({ redis, prefix, cipher: createCipher([{ id: 'k1', key: randomBytes(32) }]) });
  beforeAll(() => redis.connect());
  afterAll(async () => {
    await deleteKeysWithPrefix(redis, prefix);
    await stores.close();
  });

  test('when the session has a tombstone, then a token state write is refused and writes nothing', async () => {
    const state = { token: 'tok-late-123456', expiresAt: 1_900_000_000, version: 2 };
    const live = randomUUID();
    expect(await stores.tokens.set(live, state, 10_000)).toBe(true);
    const ended = randomUUID();
    expect(await stores.tokens.set(ended, { ...state, version: 1 }, 10_000)).toBe(true);
    await stores.tombstones.mark(ended, 10_000);
    await stores.tokens.delete(ended);
    // A refresh that finished after the logout read and deleted the state: it must not put it back.
    expect(await stores.tokens.set(ended, state, 10_000)).toBe(false);
    expect(await stores.tokens.get(ended)).toBeNull();
    expect(await stores.tokens.get(live)).toEqual(state);
  });
});
