import type { DependencyFaults } from '../observability/dependency-faults.js';
import type { Logger } from '../observability/logger.js';
import type { RedisConfig as RedisSettings } from '../config/redis-mode.js';
import { redisKeys } from './keys.js';
import { createMemoryCredentialSessions } from './memory/credential-sessions.js';
import { createMemoryDueQueue } from './memory/due-queue.js';
import { createMemoryLeaseStore } from './memory/lease.js';
import { createMemoryRateLimiter } from './memory/rate-limiter.js';
import { MemorySessionStore } from './memory/session-store.js';
import { createMemoryTokenStore } from './memory/token-store.js';
import { createMemoryTombstones } from './memory/tombstones.js';
import { createMemoryOidcStores } from './memory/oidc-stores.js';
import { createMemorySecretDrops } from './memory/secret-drops.js';
import { createMemoryDetachedQueries } from './memory/detached-queries.js';
import { createRedisDetachedQueries } from './redis/detached-queries.js';
import { Cluster } from 'ioredis';
import type { RedisClient } from './redis/client.js';
import { keepConnected, openConnection } from './redis/connections.js';
import type { FailoverWait } from './redis/failover-wait.js';
import { watchSlotMasters } from './redis/slot-masters.js';
import { createRedisOidcStores } from './redis/oidc-stores.js';
import { createRedisSecretDrops } from './redis/secret-drops.js';
import { connectOrGoOn } from './redis/startup.js';
import { createRedisCredentialSessions } from './redis/credential-sessions.js';
import { createRedisDueQueue } from './redis/due-queue.js';
import { createRedisLeaseStore } from './redis/lease.js';
import { createRedisRateLimiter } from './redis/rate-limiter.js';
import { createSessionClient } from './redis/session-client.js';
import { memorySessionRemainingMs, redisSessionRemainingMs } from './session-presence.js';
import {
  createAliveMarks,
  createEndedMarks,
  DEFAULT_SESSION_HOT_PATH,
  readSessionPair,
  withSessionHotPath,
  type SessionHotPathOptions,
} from './redis/session-hot-path.js';
import { createRedisTokenStore } from './redis/token-store.js';
import { createRedisTombstones } from './redis/tombstones.js';
import { openAckConnection, type AckConnection } from './redis/ack-connection.js';
import { createSessionCache, type SessionCache, type SessionCacheOptions } from './redis/session-cache.js';
import { createRedisSessionStore } from './redis/session-store.js';
import { createGuard, type StoreMetrics } from './store-error.js';
import type { Cipher, Stores } from './types.js';

export interface RedisStoresOptions {
  /** Owned by the stores from here on: `close()` quits it. */
  redis: RedisClient;
  /** e.g. `tgbff:`; every key starts with it. */
  prefix: string;
  cipher: Cipher;
  metrics?: StoreMetrics;
  logger?: Logger;
  /** Session TTL when a record's cookie has no expiry, which the service's never have: the idle timeout. */
  sessionFallbackTtlSeconds?: number;
  /**
   * One Redis command per request for the session: load and tombstone check in one MGET, touches
   * thinned out (see DEFAULT_SESSION_HOT_PATH). Absent: a GET, an EXISTS and an EXPIRE per request.
   */
  sessionHotPath?: SessionHotPathOptions;
  /**
   * Warm sessions served from process memory, kept true by Redis's CLIENT TRACKING invalidations
   * (session-cache.ts); needs `sessionHotPath`. Not on Cluster (see docs/architecture.md). Absent: off.
   */
  sessionCache?: SessionCacheOptions;
  /** Store commands ride out a lost connection (see failover-wait.ts); readiness asks it while Redis is away. */
  failover?: FailoverWait;
  /**
   * Sentinel and Cluster: the connection a session end's tombstone is confirmed on (a replica has it, WAIT;
   * see ack-connection.ts), apart from `redis`. Owned by the stores from here on: `close()` quits it.
   * Absent: not confirmed.
   */
  replicaAcks?: AckConnection;
  /**
   * Cluster: while the client is ready, readiness asks whether every slot has had an answering master within
   * the failover bound (see slot-masters.ts) instead of a PING. Absent: a PING.
   */
  slotMasters?: () => Promise<void>;
}

export function createRedisStores(options: RedisStoresOptions): Stores {
  const { redis, cipher, logger, replicaAcks: acks } = options;
  const keys = redisKeys(options.prefix);
  const guard = createGuard(options.metrics);
  const direct = createSessionClient({ redis, keys, guard });
  const hot = options.sessionHotPath;
  let closing = false;
  const isClosing = (): boolean => closing;
  const stopRestarts = [
    keepConnected(redis, 'main', isClosing, logger),
    ...(acks ? [keepConnected(acks.redis, 'replica-acks', isClosing, logger)] : []),
  ];
  const alive = hot ? createAliveMarks(hot.clock) : undefined;
  const ended = hot ? createEndedMarks(hot.clock) : undefined;
  // The cache needs the hot path's one read of session + tombstone, and one server to track on.
  const cache: SessionCache | undefined =
    hot && options.sessionCache && !(redis instanceof Cluster)
      ? createSessionCache({
          redis,
          keys,
          direct: (sid, call) => readSessionPair(redis, keys, guard, sid, call),
          guard,
          options: options.sessionCache,
          ...(options.metrics?.sessionCache && { metrics: options.metrics.sessionCache }),
          ...(logger && { logger }),
        })
      : undefined;
  const client =
    hot && alive
      ? withSessionHotPath(direct, {
          redis,
          keys,
          guard,
          alive,
          ...(ended && { ended }),
          options: hot,
          ...(cache && { cache }),
        })
      : direct;
  return {
    tokens: createRedisTokenStore({ redis, keys, cipher, guard, ...(logger ? { logger } : {}) }),
    leases: createRedisLeaseStore({ redis, keys, guard }),
    tombstones: createRedisTombstones({
      redis,
      keys,
      guard,
      ...(alive ? { alive } : {}),
      ...(ended && { ended }),
      ...(cache && { cache }),
      ...(acks && { replicated: acks.ack }),
    }),
    rateLimiter: createRedisRateLimiter({ redis, keys, guard }),
    sessionEnds: createRedisDueQueue({ redis, key: keys.sessionEnds(), guard }),
    sessionRemainingMs: redisSessionRemainingMs({ redis, keys, guard }),
    credentialSessions: createRedisCredentialSessions({ redis, keys, guard }),
    sessionStore: createRedisSessionStore({ client, fallbackTtlSeconds: options.sessionFallbackTtlSeconds ?? 86_400 }),
    secretDrops: createRedisSecretDrops({ redis, keys, guard }),
    oidc: createRedisOidcStores({ redis, keys, guard }),
    detachedQueries: createRedisDetachedQueries({ redis, keys, guard }),
    redis,
    ...(options.failover && { waiting: waitingOf(options.failover, acks?.failover) }),
    ...(cache && { sessionCache: cache }),
    async ping() {
      // A lost connection within the wait bound is a failover being ridden out: still ready (no PING, which
      // would wait for it). A connected but frozen Redis is pinged and fails at the command timeout.
      const { failover } = options;
      const ridingOut = (): boolean => failover !== undefined && redis.status !== 'ready' && failover.withinBound();
      if (ridingOut()) return;
      // A ready Cluster: the master of every slot is pinged instead (slot-masters.ts). Its keyless PING goes to
      // a random primary, a dead one too while the slot table names it, and is issued again every 100 ms
      // (failover-wait.ts): while a primary was being replaced it could outlast the check's bound (503).
      if (options.slotMasters && redis.status === 'ready') return options.slotMasters();
      const ping = guard(() => redis.ping());
      if (!failover) return void (await ping);
      // A PING that meets the loss (on the wire as the connection closes, or sent before the client noticed
      // it) is a read, so it is issued again on the new master and waits like any other: the same failover,
      // ready too, not a check that outlasted its bound. A frozen server closes nothing and still fails.
      await new Promise<void>((resolve, reject) => {
        const onLoss = (): void => {
          if (ridingOut()) settle(resolve);
        };
        const settle = (then: () => void): void => {
          redis.off('close', onLoss);
          redis.off('reconnecting', onLoss);
          then();
        };
        redis.on('close', onLoss);
        redis.on('reconnecting', onLoss);
        ping.then(
          () => settle(resolve),
          (err: unknown) => settle(ridingOut() ? resolve : () => reject(err as Error)),
        );
      });
    },
    async close() {
      closing = true;
      for (const stop of stopRestarts) stop();
      cache?.close();
      options.failover?.close();
      acks?.failover.close();
      await Promise.all([redis, ...(acks ? [acks.redis] : [])].map(quit));
    },
  };
}

/** QUIT lets in-flight replies arrive; when Redis is already gone it fails, and we just drop the socket. */
async function quit(client: RedisClient): Promise<void> {
  await client.quit().catch(() => undefined);
  // QUIT alone leaves a Sentinel client's failover-detector subscriptions open (and reconnecting).
  client.disconnect();
}

/** Store commands waiting for a lost connection, on the stores' connection and the acknowledgements'. */
const waitingOf =
  (main: FailoverWait, acks: FailoverWait | undefined): (() => number) =>
  () =>
    main.waiting() + (acks?.waiting() ?? 0);

/** Embedded single-instance storage; nothing in it keeps the process alive. */
export function createMemoryStores(options: { cipher: Cipher; sessionFallbackTtlSeconds?: number }): Stores {
  const tokens = createMemoryTokenStore({ cipher: options.cipher });
  const leases = createMemoryLeaseStore();
  const tombstones = createMemoryTombstones();
  const rateLimiter = createMemoryRateLimiter();
  const sessionStore = new MemorySessionStore(options.sessionFallbackTtlSeconds);
  const credentialSessions = createMemoryCredentialSessions();
  const oidc = createMemoryOidcStores();
  const detachedQueries = createMemoryDetachedQueries();
  return {
    tokens,
    leases,
    tombstones,
    rateLimiter,
    sessionEnds: createMemoryDueQueue(),
    sessionRemainingMs: memorySessionRemainingMs(sessionStore, tombstones),
    credentialSessions,
    sessionStore,
    secretDrops: createMemorySecretDrops(),
    oidc,
    detachedQueries,
    ping: async () => undefined,
    async close() {
      for (const part of [
        tokens,
        leases,
        tombstones,
        rateLimiter,
        sessionStore,
        credentialSessions,
        oidc,
        detachedQueries,
      ])
        part.close();
    },
  };
}

/**
 * The one place the service's stores are built: every store (sessions, tokens, leases, tombstones, limiter,
 * session-end queue, credential lists, secret drops, OIDC) on the Redis the settings name, or in memory.
 * A Redis that is down at start-up is not fatal: the client keeps reconnecting and /readyz says so.
 */
export async function createStores(
  settings: { redis: Readonly<RedisSettings>; idleTimeoutSeconds: number },
  deps: { cipher: Cipher; metrics?: StoreMetrics; logger: Logger; faults?: DependencyFaults },
): Promise<Stores> {
  const { redis: config } = settings;
  if (config.mode === 'memory')
    return createMemoryStores({ cipher: deps.cipher, sessionFallbackTtlSeconds: settings.idleTimeoutSeconds });
  const faults = deps.faults;
  const waiting = { waitMs: config.failoverWaitMs, maxWaiters: config.failoverWaiters };
  const { redis, failover } = openConnection(config, 'main', waiting, { logger: deps.logger, faults });
  // A standalone Redis has no automatic failover to lose a tombstone in. Both connect at once.
  const [, replicaAcks] = await Promise.all([
    connectOrGoOn(redis, deps.logger, faults),
    config.mode !== 'standalone' && config.logoutReplicaWaitMs > 0
      ? openAckConnection(config, {
          waitMs: config.logoutReplicaWaitMs,
          failover: waiting,
          logger: deps.logger,
          ...(faults && { faults }),
        })
      : undefined,
  ]);
  return createRedisStores({
    redis,
    failover,
    prefix: config.prefix,
    cipher: deps.cipher,
    ...(deps.metrics && { metrics: deps.metrics }),
    logger: deps.logger,
    sessionFallbackTtlSeconds: settings.idleTimeoutSeconds,
    sessionHotPath: DEFAULT_SESSION_HOT_PATH,
    ...(config.sessionCache && { sessionCache: config.sessionCache }),
    ...(replicaAcks && { replicaAcks }),
    ...(redis instanceof Cluster && { slotMasters: watchSlotMasters(redis, { waitMs: config.failoverWaitMs }) }),
  });
}
