import type { SessionKeys } from './keys.js';
import type { MemorySessionStore } from './memory/session-store.js';
import type { RedisClient } from './redis/client.js';
import type { Guard } from './store-error.js';
import type { SessionRemainingMs, TombstoneStore } from './types.js';

/** Two commands on one `{sid}` slot; a key without a TTL (never written so by us) counts as unbounded. */
export function redisSessionRemainingMs(deps: {
  redis: RedisClient;
  keys: SessionKeys;
  guard: Guard;
}): SessionRemainingMs {
  const { redis, keys, guard } = deps;
  return async (sid) => {
    const [ttl, dead] = await guard(() =>
      Promise.all([redis.pttl(keys.session(sid)), redis.exists(keys.tombstone(sid))]),
    );
    if (dead > 0 || ttl === -2) return null;
    return ttl < 0 ? Number.MAX_SAFE_INTEGER : ttl;
  };
}

export function memorySessionRemainingMs(sessions: MemorySessionStore, tombstones: TombstoneStore): SessionRemainingMs {
  return async (sid) => {
    if (await tombstones.isDead(sid)) return null;
    return sessions.remainingMs(sid);
  };
}
