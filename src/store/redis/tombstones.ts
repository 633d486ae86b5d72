import type { SessionKeys } from '../keys.js';
import type { RedisClient } from './client.js';
import type { AliveMarks, EndedMarks } from './session-hot-path.js';
import type { Guard } from '../store-error.js';
import { positiveMs } from '../ttl.js';
import type { TombstoneStore } from '../types.js';

/** `alive`: sessions the session load just found without a tombstone (see session-hot-path.ts). */
export function createRedisTombstones(deps: {
  redis: RedisClient;
  keys: SessionKeys;
  guard: Guard;
  alive?: AliveMarks;
  /** `ended`: what the session load just found in the tombstone of a session it did not find live. */
  ended?: EndedMarks;
  /** The session cache: a tombstone this instance writes drops the cached session before and after. */
  cache?: { forget(sid: string): void };
  /** Sentinel and Cluster: a tombstone counts once a replica has it (see replica-ack.ts); else it throws. */
  replicated?: (key: string, value: string, ttlMs: number) => Promise<void>;
}): TombstoneStore {
  const { redis, keys, guard, alive, ended, cache, replicated } = deps;
  return {
    async mark(sid, ttlMs, why = '1') {
      alive?.delete(sid);
      ended?.delete(sid);
      cache?.forget(sid);
      try {
        const ms = positiveMs(ttlMs);
        await guard(() => redis.set(keys.tombstone(sid), why, 'PX', ms));
        // A failover must not lose the end: the caller (a logout) answers 503 when no replica has it.
        if (replicated) await guard(() => replicated(keys.tombstone(sid), why, ms));
      } finally {
        cache?.forget(sid);
      }
    },
    async isDead(sid) {
      if (alive?.get(sid)) return false;
      return (await guard(() => redis.exists(keys.tombstone(sid)))) === 1;
    },
    async endedAs(sid) {
      const seen = ended?.get(sid);
      if (seen !== undefined) return seen === '' ? null : seen;
      return guard(() => redis.get(keys.tombstone(sid)));
    },
  };
}
