import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../../src/store/redis/client.js';

/** A key prefix no other test file (or run) shares on the shared Redis. */
export const uniquePrefix = (label: string): string => `test:${label}:${randomBytes(4).toString('hex')}:`;

/** Leaves the shared Redis as we found it: only our keys, never FLUSHALL. */
export async function deleteKeysWithPrefix(redis: RedisClient, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    for (const key of keys) await redis.del(key);
    cursor = next;
  } while (cursor !== '0');
}

/** A session's record key, as the README documents it: `<prefix>sess:{<sid>}` (the hash tag keeps a session's keys in one Cluster slot). */
export const sessionKey = (prefix: string, sid: string): string => `${prefix}sess:{${sid}}`;
