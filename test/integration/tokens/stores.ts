import { randomBytes } from 'node:crypto';
import { createMemoryStores, createRedisStores } from '../../../src/store/create-stores.js';
import { createCipher } from '../../../src/store/crypto.js';
import { createRedisClient } from '../../../src/store/redis.js';
import type { LeaseStore, TokenStore } from '../../../src/store/types.js';
import { deleteKeysWithPrefix } from '../../helpers/redis-prefix.js';

export type StoreKind = 'memory' | 'redis';
export const STORE_KINDS: StoreKind[] = ['memory', 'redis'];

/** The shared Redis of the test machine; every test file uses its own key prefix on it. */
const REDIS_URL = 'redis://127.0.0.1:6379';

export interface TestStores {
  tokens: TokenStore;
  leases: LeaseStore;
  /** Key prefix, so another "instance" can open the same Redis keyspace. */
  prefix: string;
  close(): Promise<void>;
}

const cipher = createCipher([{ id: 'test', key: randomBytes(32) }]);

/** Real stores: the embedded memory ones, or Redis ones on their own connection. */
export async function openStores(kind: StoreKind, prefix: string): Promise<TestStores> {
  if (kind === 'memory') {
    const stores = createMemoryStores({ cipher });
    return { tokens: stores.tokens, leases: stores.leases, prefix, close: () => stores.close() };
  }
  const redis = createRedisClient({ mode: 'standalone', url: REDIS_URL });
  await redis.connect();
  const stores = createRedisStores({ redis, prefix, cipher });
  return {
    tokens: stores.tokens,
    leases: stores.leases,
    prefix,
    close: async () => {
      await deleteKeysWithPrefix(redis, prefix);
      await stores.close();
    },
  };
}
