import type { Redis, RedisOptions } from 'ioredis';
import type { DependencyFaults } from '../../observability/dependency-faults.js';
import type { Logger } from '../../observability/logger.js';
import { createRedisClient, type RedisClient, type RedisConfig } from './client.js';
import { failFastWhileSilent, replyBeforeTimeout } from './command-timeout.js';
import { connectAgainWhenEnded } from './connect-again.js';
import { rideOutFailover, type FailoverWait, type FailoverWaitOptions } from './failover-wait.js';

/**
 * The one place the stores' Redis connections are built, each with what it has installed, in this order:
 *
 * - `main` (`openConnection`): reply before timeout, failover wait, silence (inner to outer);
 * - `replica-acks`, Sentinel and Cluster only (`openConnection`): the same;
 * - `session-cache-tracked` and `session-cache-invalidations` (`openCacheConnections`): reply before
 *   timeout, silence.
 *
 * The order is the layers' contract: `replyBeforeTimeout` (command-timeout.ts) first, as it only swaps the
 * command's timeout; `rideOutFailover` (failover-wait.ts) next; `failFastWhileSilent` outermost, so a command
 * refused on a silent connection never reaches the failover wait (which would take an unsent command for one
 * it may issue again). Listeners: client.ts's (outage lines; on Sentinel a lost connection's switch watch
 * stops with it), the silence's and the failover wait's; `keepConnected` adds the restart of a connection
 * ioredis ended by itself (connect-again.ts), for whoever owns the connection's life.
 */

/** The names connections carry in log lines (`redisConnection`). */
export type ConnectionName = 'main' | 'replica-acks' | 'session-cache-tracked' | 'session-cache-invalidations';

/** A connection of the stores and its failover wait. */
export interface StoreConnection {
  redis: RedisClient;
  failover: FailoverWait;
}

export interface ConnectionDeps {
  logger: Logger;
  /** Outages as fault lines naming the Redis setting (one line per cause, shared by the connections). */
  faults?: DependencyFaults | undefined;
}

/**
 * A connection the stores issue commands on (`main`, `replica-acks`): built from the settings (so on
 * Sentinel the same master through the same sentinels, on Cluster the same cluster), with the command
 * timeout that lets a received reply win, the failover wait, and the fail-fast silence. Not connected yet.
 */
export function openConnection(
  config: RedisConfig,
  name: 'main' | 'replica-acks',
  waiting: FailoverWaitOptions,
  deps: ConnectionDeps,
): StoreConnection {
  const { logger, faults } = deps;
  // The client's outage lines name the connection, except the main one's (as they always read).
  const clientLogger = name === 'main' ? logger : logger.child({ redisConnection: name });
  const redis = createRedisClient(config, { logger: clientLogger, ...(faults && { faults }) });
  // The parent logger: the silence lines name the connection themselves (the child's binding would repeat it).
  const silence = replyBeforeTimeout(redis, { logger, connection: name });
  const failover = rideOutFailover(redis, waiting);
  // Outermost: a frozen Redis costs a request one command timeout, not one per store step.
  failFastWhileSilent(redis, silence);
  return { redis, failover };
}

/**
 * The session cache's two connections (session-cache.ts), duplicates of `main` (ioredis `duplicate()`: the
 * same server, Sentinel group, TLS and credentials; on Sentinel the switch watch stops with a lost
 * connection, client.ts). Their command timeout lets a received reply win (a heartbeat answered while the
 * event loop was busy must not flush the cache); once one timed out, the next fail at once until Redis
 * answers again. No failover wait: a lost connection flushes the cache, which then reads from `main`.
 * Not connected yet; `closing` tells a connection ioredis ended by itself from one ended on purpose.
 */
export function openCacheConnections(
  main: Redis,
  closing: () => boolean,
  logger: Logger | undefined,
): { tracker: Redis; invalidations: Redis } {
  const open = (name: 'session-cache-tracked' | 'session-cache-invalidations', options: Partial<RedisOptions>) => {
    const redis = main.duplicate({ lazyConnect: true, enableOfflineQueue: false, ...options });
    failFastWhileSilent(redis, replyBeforeTimeout(redis, { logger, connection: name }));
    // ioredis wants an 'error' listener on every client; the main one logs outages, these need not.
    redis.on('error', NOOP);
    // Ended by ioredis itself, it would stay down, and the cache bypassed for good: connected again.
    keepConnected(redis, name, closing, logger);
    return redis;
  };
  return {
    tracker: open('session-cache-tracked', { connectionName: 'tgbff-tracked' }),
    invalidations: open('session-cache-invalidations', {
      autoResubscribe: false,
      connectionName: 'tgbff-invalidations',
    }),
  };
}

/**
 * Connects `redis` again, after a short pause, whenever ioredis ends it by itself (`closing()` false).
 * Returns the listener's removal, for a close that ends it on purpose.
 */
export function keepConnected(
  redis: RedisClient,
  name: ConnectionName,
  closing: () => boolean,
  logger: Logger | undefined,
): () => void {
  // The main connection's warning reads as it always has (no connection named).
  return connectAgainWhenEnded(redis, closing, logger, name === 'main' ? undefined : name);
}

const NOOP = (): void => undefined;
