import { performance } from 'node:perf_hooks';
import type { SessionKeys } from '../keys.js';
import type { RedisClient } from './client.js';
import type { SessionClient } from './session-client.js';
import { ShortCache } from '../../cache/short-cache.js';
import type { Guard } from '../store-error.js';
import type { StoreCall } from '../store-call.js';
import { issuedFor } from './failover-wait.js';
import type { SessionCache } from './session-cache.js';

export interface SessionHotPathOptions {
  /**
   * A touch (EXPIRE back to the idle timeout) of a session this instance touched less than this
   * fraction of its TTL ago is skipped. The idle timeout then ends a session at most that fraction
   * early, never late. 0 touches on every request.
   */
  touchFraction: number;
  /** Cap of the skip window, whatever the TTL. */
  maxTouchSkipMs: number;
  clock?: () => number;
}

export const DEFAULT_SESSION_HOT_PATH: SessionHotPathOptions = { touchFraction: 0.01, maxTouchSkipMs: 60_000 };

/**
 * How long "loaded without a tombstone" answers the tombstone check of the same request. The load and
 * the check run back to back in one request, so this only has to outlast that gap.
 */
export const ALIVE_MARK_MS = 250;

/**
 * The hot path's one read: a session record and its tombstone (same `{sid}` slot), as one MGET, issued for
 * `call` (a wait for a lost connection ends, unsent, when its signal aborts).
 */
export const readSessionPair = (redis: RedisClient, keys: SessionKeys, guard: Guard, sid: string, call?: StoreCall) =>
  guard(() => issuedFor(call, () => redis.mget(keys.session(sid), keys.tombstone(sid)))) as Promise<
    [string | null, string | null]
  >;

/** Sessions whose load just found no tombstone, shared by the session client and the tombstone store. */
export type AliveMarks = ShortCache<true>;

export function createAliveMarks(clock?: () => number): AliveMarks {
  return new ShortCache<true>(ALIVE_MARK_MS, 50_000, clock);
}

/**
 * Sessions whose load found no live session: the tombstone's value it read ('' for none), so the gate's
 * question of what ended it (a documented code for the browser) costs no second read.
 */
export type EndedMarks = ShortCache<string>;

export function createEndedMarks(clock?: () => number): EndedMarks {
  return new ShortCache<string>(ALIVE_MARK_MS, 10_000, clock);
}

/**
 * The session store's hot path in one Redis command per request. A load is one MGET of the session
 * and its tombstone (same `{sid}` slot, so legal on Cluster): a logged-out session loads as absent, and
 * the request's own tombstone check is answered from the mark the load left. Touches from one instance
 * are thinned out. Writes and deletes go straight through.
 */
export function withSessionHotPath(
  client: SessionClient,
  deps: {
    redis: RedisClient;
    keys: SessionKeys;
    guard: Guard;
    alive: AliveMarks;
    ended?: EndedMarks;
    options: SessionHotPathOptions;
    /** Warm sessions from process memory, kept true by Redis's invalidations (session-cache.ts). */
    cache?: SessionCache;
  },
): SessionClient {
  const { redis, keys, guard, alive, ended, options, cache } = deps;
  const clock = options.clock ?? (() => performance.now());
  const touches = new ShortCache<number>(options.maxTouchSkipMs, 50_000, clock);
  /** Before a write: this instance's marks of the session go (`writing` drops the cached record). */
  const forget = (sid: string) => {
    touches.delete(sid);
    alive.delete(sid);
  };
  const load = (sid: string, call?: StoreCall) => readSessionPair(redis, keys, guard, sid, call);
  /** A write of this instance: the cached record goes before it is sent and again once it is done. */
  const writing = async <T>(sid: string, write: () => Promise<T>): Promise<T> => {
    cache?.forget(sid);
    try {
      return await write();
    } finally {
      cache?.forget(sid);
    }
  };

  return {
    ...client,
    async get(sid, bypassCache, call) {
      const [blob, dead] = cache && bypassCache !== true ? await cache.read(sid, call) : await load(sid, call);
      if (dead != null || blob == null) {
        alive.delete(sid);
        ended?.set(sid, dead ?? '');
        // Read past the cache, an end whose invalidation has not arrived yet: the cache drops the session now,
        // so this instance's relayed requests stop being served from it too.
        if (bypassCache === true) cache?.forget(sid);
        return null;
      }
      alive.renew(sid, true);
      return blob;
    },
    async set(sid, value, ttlSeconds) {
      forget(sid);
      return writing(sid, () => client.set(sid, value, ttlSeconds));
    },
    async expire(sid, ttlSeconds) {
      const now = clock();
      const last = touches.get(sid);
      const window = Math.min(ttlSeconds * 1000 * options.touchFraction, options.maxTouchSkipMs);
      if (last !== undefined && now - last < window) return 1;
      // Marked before the round trip, so the requests of one session that arrive meanwhile skip too.
      touches.set(sid, now);
      try {
        // A touch is a write: Redis invalidates the record everywhere (one re-read), here too.
        const result = await writing(sid, () => client.expire(sid, ttlSeconds));
        // Only a touch that found the key counts: a missing session must not look recently touched.
        if (result !== 1) touches.delete(sid);
        return result;
      } catch (err) {
        touches.delete(sid);
        throw err;
      }
    },
    async del(sid) {
      forget(sid);
      return writing(sid, () => client.del(sid));
    },
  };
}
