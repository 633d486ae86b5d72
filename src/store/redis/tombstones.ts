import type { SessionKeys } from '../keys.js';
import type { RedisClient } from './client.js';
import type { AliveMarks } from './session-hot-path.js';
import type { Guard } from '../store-error.js';
import { positiveMs } from '../ttl.js';
import type { TombstoneStore } from '../types.js';

/** `alive`: sessions the session load just found without a tombstone (see session-hot-path.ts). */
export function createRedisTombstones(deps: {
  redis: RedisClient;
  keys: SessionKeys;
  guard: Guard;
  alive?: AliveMarks;
  /** The session cache: a tombstone this instance writes drops the cached session before and after. */
  cache?: { forget(sid: string): void };
}): TombstoneStore {
  const { redis, keys, guard, alive, cache } = deps;
  return {
    async mark(sid, ttlMs) {
      alive?.delete(sid);
      cache?.forget(sid);
      try {
        await guard(() => redis.set(keys.tombstone(sid), '1', 'PX', positiveMs(ttlMs)));
      } finally {
        cache?.forget(sid);
      }
    },
    async isDead(sid) {
      if (alive?.get(sid)) return false;
      return (await guard(() => redis.exists(keys.tombstone(sid)))) === 1;
    },
  };
}
