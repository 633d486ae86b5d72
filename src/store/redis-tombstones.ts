import type { SessionKeys } from './keys.js';
import type { RedisClient } from './redis.js';
import type { Guard } from './store-error.js';
import { positiveMs } from './ttl.js';
import type { TombstoneStore } from './types.js';

export function createRedisTombstones(deps: { redis: RedisClient; keys: SessionKeys; guard: Guard }): TombstoneStore {
  const { redis, keys, guard } = deps;
  return {
    async mark(sid, ttlMs) {
      await guard(() => redis.set(keys.tombstone(sid), '1', 'PX', positiveMs(ttlMs)));
    },
    async isDead(sid) {
      return (await guard(() => redis.exists(keys.tombstone(sid)))) === 1;
    },
  };
}
