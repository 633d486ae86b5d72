import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../../observability/logger.js';
import type { SessionKeys } from '../keys.js';

/** The channel Redis pushes invalidations to for a RESP2 client (CLIENT TRACKING … REDIRECT). */
export const INVALIDATE_CHANNEL = '__redis__:invalidate';

export interface SessionCacheOptions {
  /** Most sessions kept per instance; the least recently used go first. */
  max: number;
  /** Longest an entry lives, whatever else happens (the session key's own TTL caps it as well). */
  ttlMs: number;
  /** How often the invalidation connection is pinged; no answer within the command timeout flushes. */
  heartbeatMs?: number;
  /** Wait before trying to set tracking up again after a failed attempt. */
  retryMs?: number;
}

export const DEFAULT_SESSION_CACHE: SessionCacheOptions = { max: 10_000, ttlMs: 60_000 };

/** What the cache reports (observability/metrics.ts has them as Prometheus series). */
export interface SessionCacheMetrics {
  /** result = hit | miss (read from Redis, tracked) | bypass (tracking not established: read as without cache). */
  lookups: { inc(labels: { result: 'hit' | 'miss' | 'bypass' }): void };
  /** kind = key (Redis said a key changed) | flush (everything dropped: connection lost, null invalidation). */
  invalidations: { inc(labels: { kind: 'key' | 'flush' }): void };
  size: { set(value: number): void };
}

/** The pair the hot path's MGET answers: the session record and its tombstone. */
export type SessionPair = [string | null, string | null];

export interface SessionCache {
  /** The session and its tombstone: from memory when warm and tracked, else read (and tracked) from Redis. */
  read(sid: string): Promise<SessionPair>;
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

interface Pending {
  count: number;
  /** The invalidation sequence number of the last invalidation of this sid while reads were in flight. */
  lastInvalidation: number;
}

const NOOP = (): void => undefined;

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
 *   the reply, as it comes on the other connection): reads mark their sid pending, invalidations note the
 *   sequence number on a pending sid, and a reply older than the last invalidation is returned but not kept.
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
  direct: (sid: string) => Promise<SessionPair>;
  options: SessionCacheOptions;
  metrics?: SessionCacheMetrics;
  logger?: Logger;
}): SessionCache {
  const { redis, keys, direct, options, logger } = deps;
  const metrics = deps.metrics;
  const heartbeatMs = options.heartbeatMs ?? 1000;
  const retryMs = options.retryMs ?? 250;
  const cache = new LRUCache<string, string>({ max: options.max, ttl: options.ttlMs, ttlAutopurge: false });
  const pending = new Map<string, Pending>();

  let epoch = 0;
  let invalidationSeq = 0;
  let ready = false;
  let closed = false;
  let attempt = 0;
  let settingUp = false;
  let waiters: Array<() => void> = [];
  /** The current subscriber connection's id and name, once it is subscribed; cleared when it closes. */
  let subscribed: { id: string; name: string } | undefined;

  const tracker = redis.duplicate({ lazyConnect: true, enableOfflineQueue: false, connectionName: 'tgbff-tracked' });
  const invalidations = redis.duplicate({ lazyConnect: true, enableOfflineQueue: false, autoResubscribe: false });
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
    invalidationSeq += 1;
    const entry = pending.get(sid);
    if (entry) entry.lastInvalidation = invalidationSeq;
    if (cache.delete(sid)) reportSize();
  };

  const flush = (why: string): void => {
    epoch += 1;
    invalidationSeq += 1;
    for (const entry of pending.values()) entry.lastInvalidation = invalidationSeq;
    cache.clear();
    reportSize();
    metrics?.invalidations.inc({ kind: 'flush' });
    if (ready) logger?.info({ reason: why }, 'session cache flushed; bypassed until tracking is set up again');
  };

  const lost = (why: string) => () => {
    const wasReady = ready;
    ready = false;
    attempt += 1;
    if (wasReady || cache.size > 0) flush(why);
    else epoch += 1;
  };

  invalidations.on('messageBuffer', (channel: Buffer, message: Buffer | Buffer[] | null) => {
    if (channel.toString() !== INVALIDATE_CHANNEL) return;
    if (message == null) {
      // "Everything": FLUSHALL/FLUSHDB, or Redis gave up tracking (its table full). Tracking stays on.
      flush('null invalidation');
      return;
    }
    for (const raw of Array.isArray(message) ? message : [message]) {
      const sid = sidOf(raw.toString());
      metrics?.invalidations.inc({ kind: 'key' });
      if (sid === undefined) flush('invalidation of an unexpected key');
      else invalidate(sid);
    }
  });

  const setUp = async (): Promise<void> => {
    if (settingUp || closed || ready) return;
    if (!connections.every((c) => c.status === 'ready')) return;
    settingUp = true;
    const mine = attempt;
    try {
      // The subscriber is named with a fresh random name, so the tracker can confirm that the id it
      // redirects to is this very connection on the very server it reads from (ids are per server).
      // A subscriber still connected (only another connection dropped) is kept as it is.
      if (subscribed === undefined) {
        const name = `tgbff-inv-${randomBytes(8).toString('hex')}`;
        await invalidations.client('SETNAME', name);
        const subId = String(await invalidations.client('ID'));
        await invalidations.subscribe(INVALIDATE_CHANNEL);
        subscribed = { id: subId, name };
      }
      const { id, name } = subscribed;
      await tracker.call('CLIENT', 'TRACKING', 'OFF');
      const on = await tracker.call('CLIENT', 'TRACKING', 'ON', 'REDIRECT', id);
      const listed = String(await tracker.call('CLIENT', 'LIST', 'ID', id));
      const [mainInfo, trackerInfo] = await Promise.all([redis.info('server'), tracker.info('server')]);
      const runId = (info: string) => /run_id:(\w+)/.exec(info)?.[1];
      const sameServer = runId(mainInfo) !== undefined && runId(mainInfo) === runId(trackerInfo);
      if (on !== 'OK' || !listed.includes(` name=${name} `) || !sameServer) throw new Error('tracking not confirmed');
      if (mine !== attempt || closed) return; // a connection dropped meanwhile: its handler starts again
      ready = true;
      for (const wake of waiters) wake();
      waiters = [];
      logger?.info('session cache tracking established');
    } catch (err) {
      logger?.warn({ err: { message: (err as Error).message } }, 'session cache tracking not set up; retrying');
      if (mine === attempt && !closed) {
        // Fresh connections, through the sentinels again: they may have been on different servers.
        setTimeout(() => {
          if (closed || ready) return;
          invalidations.disconnect(true);
          tracker.disconnect(true);
        }, retryMs).unref();
      }
    } finally {
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
  // ioredis wants an 'error' listener on every client; the main one logs outages, these need not.
  tracker.on('error', NOOP);
  invalidations.on('error', NOOP);

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

  const keep = (sid: string, pair: SessionPair, pttl: number, startEpoch: number, startSeq: number): void => {
    const [blob, dead] = pair;
    if (blob == null || dead != null || pttl === -2) return;
    if (!ready || epoch !== startEpoch) return;
    const entry = pending.get(sid);
    if (entry && entry.lastInvalidation > startSeq) return;
    cache.set(sid, blob, { ttl: pttl > 0 ? Math.min(options.ttlMs, pttl) : options.ttlMs });
    reportSize();
  };

  return {
    async read(sid) {
      if (!ready) {
        metrics?.lookups.inc({ result: 'bypass' });
        return direct(sid);
      }
      const hit = cache.get(sid);
      if (hit !== undefined) {
        metrics?.lookups.inc({ result: 'hit' });
        return [hit, null];
      }
      metrics?.lookups.inc({ result: 'miss' });
      const startEpoch = epoch;
      const startSeq = invalidationSeq;
      const entry = pending.get(sid) ?? { count: 0, lastInvalidation: 0 };
      entry.count += 1;
      pending.set(sid, entry);
      try {
        const replies = await tracker
          .pipeline()
          .mget(keys.session(sid), keys.tombstone(sid))
          .pttl(keys.session(sid))
          .exec();
        const [[mgetErr, pair], [pttlErr, pttl]] = replies as [[Error | null, SessionPair], [Error | null, number]];
        if (mgetErr || pttlErr) throw new Error('tracked read failed', { cause: mgetErr ?? pttlErr });
        keep(sid, pair, pttl, startEpoch, startSeq);
        return pair;
      } catch {
        // The tracked connection failed (it is reconnecting; its 'close' flushed): read as without the cache.
        return direct(sid);
      } finally {
        entry.count -= 1;
        if (entry.count === 0) pending.delete(sid);
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
