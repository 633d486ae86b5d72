import { createRedisStores } from '../../../src/store/create-stores.js';
import type { Cipher } from '../../../src/store/types.js';
import { createRedisClient } from '../../../src/store/redis/client.js';
import type { LeaseStore, TokenStore } from '../../../src/store/types.js';

export type StoreKind = 'memory' | 'redis';
export const STORE_KINDS: StoreKind[] = ['memory', 'redis'];

export interface TestStores {
  tokens: TokenStore;
  leases: LeaseStore;
  /** Key prefix, so another "instance" can open the same Redis keyspace. */
  prefix: string;
  close(): Promise<void>;
}

/** Another instance's Redis stores on the shared Redis: its own connection, the same keys and keys to open them. */
export async function openRedisStores(prefix: string, cipher: Cipher): Promise<TestStores> {
  const redis = createRedisClient({ mode: 'standalone', url: 'redis://127.0.0.1:6379' });
  await redis.connect();
  const stores = createRedisStores({ redis, prefix, cipher });
  return { tokens: stores.tokens, leases: stores.leases, prefix, close: () => stores.close() };
}
