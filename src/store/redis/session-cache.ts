import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../../observability/logger.js';
import type { SessionKeys } from '../keys.js';
import type { Guard, SessionCacheMetrics } from '../store-error.js';
import type { StoreCall } from '../store-call.js';
import { metSilence } from './command-timeout.js';
import { openCacheConnections } from './connections.js';

/** The channel Redis pushes invalidations to for a RESP2 client (CLIENT TRACKING … REDIRECT). */
export const INVALIDATE_CHANNEL = '__redis__:invalidate';

export interface SessionCacheOptions {
  /** Most sessions kept per instance; the least recently used go first. */
  max: number;
  /** Longest an entry lives, whatever else happens (the session key's own TTL caps it as well). */
  ttlMs: number;
  /** How often the invalidation connection is pinged; no answer within the command timeout flushes. */
  heartbeatMs?: number;
  /** Wait before trying to set tracking up again after a failed attempt (doubling, to 30 s). */
  retryMs?: number;
  /** How long the set-up's probe invalidation may take before the attempt counts as failed. */
  probeTimeoutMs?: number;
}

export const DEFAULT_SESSION_CACHE: SessionCacheOptions = { max: 10_000, ttlMs: 60_000 };

/** The pair the hot path's MGET answers: the session record and its tombstone. */
export type SessionPair = [string | null, string | null];

export interface SessionCache {
  /** The session and its tombstone: from memory when warm and tracked, else read (and tracked) from Redis. */
  read(sid: string, call?: StoreCall): Promise<SessionPair>;
  /** This instance writes the session or its tombstone: drop it now (before and after the write). */
  forget(sid: string): void;
  /** True while tracking is established and the cache serves. */
  serving(): boolean;
  /** Resolves once tracking is established (start-up, tests). */
  whenServing(): Promise<void>;
  /** Entries held now. */
  size(): number;
  close(): void;
}

/** A tracked read in flight; concurrent misses of one session share it while nothing invalidated it. */
interface Flight {
  answer: Promise<SessionPair>;
  epoch: number;
  /** An invalidation of its session (or a flush) arrived after it was sent: its reply is not kept. */
  invalidated: boolean;
}

const NOOP = (): void => undefined;
const MAX_RETRY_MS = 30_000;

/**
 * Server-assisted client-side caching of session records (Redis 6+ CLIENT TRACKING, default mode with
 * REDIRECT, since ioredis speaks RESP2). Two connections of its own, next to the main one:
 * - `tracker` reads the session and tombstone keys with tracking on, so Redis remembers that this instance
 *   holds them and only those keys (the main connection has no tracking);
 * - `invalidations` is subscribed to `__redis__:invalidate`; Redis sends it the names of tracked keys that
 *   any client wrote (SET, DEL, EXPIRE, expiry), and a null message for "drop everything".
 *
 * Rules (Redis's own for client-side caching):
 * - A read in flight when an invalidation of its key arrives is not cached (the invalidation may overtake
 *   the reply, as it comes on the other connection): a read is registered per sid while in flight, an
 *   invalidation marks it, and a marked read's reply is returned but not kept. Concurrent misses of one
 *   session share the unmarked read in flight (one round trip for a burst).
 * - Any of the three connections closing, a null invalidation or a missed heartbeat flushes everything and
 *   bumps the epoch: replies of reads started in an older epoch are not kept. Until tracking is set up again
 *   on the current connections (and confirmed to redirect to our subscriber on the same server), reads
 *   bypass the cache and go as without it.
 * - Only live sessions are kept (a record and no tombstone), with a TTL of the smaller of `ttlMs` and the
 *   key's own PTTL, so nothing outlives the key even if an expiry's invalidation were late.
 */
export function createSessionCache(deps: {
  redis: Redis;
  keys: SessionKeys;
  /** The read without the cache (the hot path's MGET on the main connection). */
  direct: (sid: string, call?: StoreCall) => Promise<SessionPair>;
  /** The stores' guard: a tracked read Redis did not answer fails through it (503 store_unavailable). */
  guard: Guard;
  options: SessionCacheOptions;
  metrics?: SessionCacheMetrics;
  logger?: Logger;
}): SessionCache {
  const { redis, keys, direct, guard, options, logger } = deps;
  const metrics = deps.metrics;
  const heartbeatMs = options.heartbeatMs ?? 1000;
  const retryMs = options.retryMs ?? 250;
  const cache = new LRUCache<string, string>({ max: options.max, ttl: options.ttlMs, ttlAutopurge: false });
  const pending = new Map<string, Flight>();

  let epoch = 0;
  let ready = false;
  let closed = false;
  let attempt = 0;
  let settingUp = false;
  let waiters: Array<() => void> = [];
  /** The current subscriber connection's id, once it is subscribed; cleared when it closes. */
  let subscribed: string | undefined;

  // Built in connections.ts: duplicates of `redis`, a reply received wins over the command timeout, fail
  // fast while silent, connected again if ioredis ends them by itself.
  const { tracker, invalidations } = openCacheConnections(redis, () => closed, logger);
  const probePrefix = keys.cacheProbe('');
  const probeTimeoutMs = options.probeTimeoutMs ?? 2000;
  const connections = [redis, tracker, invalidations];
  const reportSize = () => metrics?.size.set(cache.size);

  /** The sid of a session or tombstone key (`<prefix>sess:{sid}`, `<prefix>dead:{sid}`); else undefined. */
  const sidOf = (key: string): string | undefined => {
    for (const keyOf of [keys.session, keys.tombstone]) {
      const empty = keyOf('');
      const [head, tail] = [empty.slice(0, empty.indexOf('{') + 1), empty.slice(empty.indexOf('{') + 1)];
      if (key.length <= empty.length || !key.startsWith(head) || !key.endsWith(tail)) continue;
      const sid = key.slice(head.length, key.length - tail.length);
      if (keyOf(sid) === key) return sid;
    }
    return undefined;
  };

  const invalidate = (sid: string): void => {
    const flight = pending.get(sid);
    if (flight) flight.invalidated = true;
    if (cache.delete(sid)) reportSize();
  };

  const flush = (why: string): void => {
    epoch += 1;
    for (const flight of pending.values()) flight.invalidated = true;
    cache.clear();
    reportSize();
    metrics?.invalidations.inc({ kind: 'flush' });
    logger?.info({ reason: why }, 'session cache flushed');
  };

  const lost = (why: string) => () => {
    const wasReady = ready;
    ready = false;
    attempt += 1;
    if (wasReady || cache.size > 0) {
      flush(why);
      logger?.info('session cache bypassed until tracking is set up again');
    } else epoch += 1;
  };

  invalidations.on('messageBuffer', (channel: Buffer, message: Buffer | Buffer[] | null) => {
    if (channel.toString() !== INVALIDATE_CHANNEL) return;
    if (message == null) {
      // "Everything": FLUSHALL/FLUSHDB, or Redis gave up tracking (its table full). Tracking stays on.
      flush('null invalidation');
      return;
    }
    for (const raw of Array.isArray(message) ? message : [message]) {
      const key = raw.toString();
      if (probe?.key === key) {
        probe.arrived();
        continue;
      }
      if (key.startsWith(probePrefix)) continue; // an earlier set-up's probe
      const sid = sidOf(key);
      metrics?.invalidations.inc({ kind: 'key' });
      if (sid === undefined) flush('invalidation of an unexpected key');
      else invalidate(sid);
    }
  });

  /** The probe of the set-up in progress: its key, and what to call when its invalidation arrives. */
  let probe: { key: string; arrived: () => void } | undefined;
  let failures = 0;

  const setUp = async (): Promise<void> => {
    if (settingUp || closed || ready) return;
    if (!connections.every((c) => c.status === 'ready')) return;
    settingUp = true;
    const mine = attempt;
    try {
      // A subscriber still connected (only another connection dropped) is kept as it is.
      if (subscribed === undefined) {
        const subId = String(await invalidations.client('ID'));
        await invalidations.subscribe(INVALIDATE_CHANNEL);
        subscribed = subId;
      }
      await tracker.call('CLIENT', 'TRACKING', 'OFF');
      const on = await tracker.call('CLIENT', 'TRACKING', 'ON', 'REDIRECT', subscribed);
      if (on !== 'OK') throw new Error('CLIENT TRACKING refused');
      // Confirmed end to end: the tracker reads a probe key, the main connection writes it, and the
      // subscriber must hear of it. Ids are per server, so this also proves all three reach one server
      // (a redirect id that happens to exist on another server would never deliver the probe).
      const key = keys.cacheProbe(randomBytes(8).toString('hex'));
      const heard = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('probe invalidation did not arrive')), probeTimeoutMs);
        probe = {
          key,
          arrived: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      });
      heard.catch(NOOP);
      await tracker.get(key);
      await redis.set(key, '1', 'PX', 10_000);
      await heard;
      await redis.del(key);
      if (mine !== attempt || closed) return; // a connection dropped meanwhile: its handler starts again
      ready = true;
      failures = 0;
      for (const wake of waiters) wake();
      waiters = [];
      logger?.info('session cache tracking established');
    } catch (err) {
      // One warning per outage, not per retry (a Redis ACL without CLIENT TRACKING or the channel would
      // otherwise log every few seconds; the cache then stays bypassed, each load one MGET as without it).
      if (failures === 0)
        logger?.warn(
          { err: { message: (err as Error).message } },
          'session cache tracking not set up; loads go to Redis until it is (retrying)',
        );
      failures += 1;
      if (mine === attempt && !closed) {
        // Fresh connections, through the sentinels again: they may have been on different servers.
        const delay = Math.min(retryMs * 2 ** Math.min(failures - 1, 10), MAX_RETRY_MS);
        setTimeout(() => {
          if (closed || ready) return;
          invalidations.disconnect(true);
          tracker.disconnect(true);
        }, delay).unref();
      }
    } finally {
      probe = undefined;
      settingUp = false;
      if (!ready && !closed && mine !== attempt) void setUp();
    }
  };

  invalidations.on('close', () => {
    subscribed = undefined;
  });
  for (const connection of connections) {
    connection.on('close', lost('connection closed'));
    connection.on('ready', () => void setUp());
  }

  const heartbeat = setInterval(() => {
    if (!ready) return;
    invalidations.ping().catch(() => {
      // A subscriber that does not answer may be missing invalidations: flush, and connect it again.
      lost('invalidation connection silent')();
      invalidations.disconnect(true);
    });
  }, heartbeatMs);
  heartbeat.unref();

  void tracker.connect().catch(NOOP);
  void invalidations.connect().catch(NOOP);

  const keep = (sid: string, pair: SessionPair, pttl: number, flight: Flight): void => {
    const [blob, dead] = pair;
    if (blob == null || dead != null || pttl === -2) return;
    if (!ready || flight.invalidated || flight.epoch !== epoch) return;
    cache.set(sid, blob, { ttl: pttl > 0 ? Math.min(options.ttlMs, pttl) : options.ttlMs });
    reportSize();
  };

  const trackedRead = async (sid: string, flight: Flight): Promise<SessionPair> => {
    const replies = await tracker
      .pipeline()
      .mget(keys.session(sid), keys.tombstone(sid))
      .pttl(keys.session(sid))
      .exec();
    const [[mgetErr, pair], [pttlErr, pttl]] = replies as [[Error | null, SessionPair], [Error | null, number]];
    // The command's own error (a timeout stays recognisable as one).
    const failed = mgetErr ?? pttlErr;
    if (failed) throw failed;
    keep(sid, pair, pttl, flight);
    return pair;
  };

  /**
   * A tracked read failed. Its connection lost (it is reconnecting; its 'close' flushed): read as without
   * the cache. Redis up but not answering (the read timed out, or its connection is silent since one did):
   * the request answers 503 now, not after a second command timeout on the main connection.
   */
  const fallBack = (sid: string, err: unknown, call: StoreCall | undefined): Promise<SessionPair> =>
    metSilence(err) ? guard(() => Promise.reject(err as Error)) : direct(sid, call);

  return {
    async read(sid, call) {
      if (!ready) {
        metrics?.lookups.inc({ result: 'bypass' });
        return direct(sid, call);
      }
      const hit = cache.get(sid);
      if (hit !== undefined) {
        metrics?.lookups.inc({ result: 'hit' });
        return [hit, null];
      }
      // Requests of one session arrive together (a page's burst): they share one read, unless something
      // invalidated it since it was sent (then its answer may predate a write this instance already knows of).
      const current = pending.get(sid);
      if (current && !current.invalidated && current.epoch === epoch) {
        metrics?.lookups.inc({ result: 'shared' });
        return current.answer.catch((err: unknown) => fallBack(sid, err, call));
      }
      metrics?.lookups.inc({ result: 'miss' });
      const flight: Flight = { answer: Promise.resolve([null, null]), epoch, invalidated: false };
      flight.answer = trackedRead(sid, flight);
      pending.set(sid, flight);
      try {
        return await flight.answer;
      } catch (err) {
        return fallBack(sid, err, call);
      } finally {
        if (pending.get(sid) === flight) pending.delete(sid);
      }
    },
    forget(sid) {
      invalidate(sid);
    },
    serving: () => ready,
    whenServing: () => (ready ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    size: () => cache.size,
    close() {
      closed = true;
      ready = false;
      clearInterval(heartbeat);
      cache.clear();
      for (const wake of waiters) wake();
      waiters = [];
      tracker.disconnect();
      invalidations.disconnect();
    },
  };
}
