import { Cluster } from 'ioredis';
import type { DependencyFaults } from '../../observability/dependency-faults.js';
import type { Logger } from '../../observability/logger.js';
import { DEFAULT_COMMAND_TIMEOUT_MS, type RedisClient, type RedisConfig } from './client.js';
import { openConnection } from './connections.js';
import type { FailoverWait, FailoverWaitOptions } from './failover-wait.js';
import { replicaAck } from './replica-ack.js';
import { connectOrGoOn } from './startup.js';

/**
 * The connection replica acknowledgements go on (replica-ack.ts), one per instance, apart from the one the
 * stores share. Redis blocks a connection while a WAIT runs: on the shared connection, while a replica lagged
 * or was frozen, every session end held every other store command of the instance (logins, relayed
 * requests' session reads) for up to the wait, and a run of logouts stalled the instance. Here the WAITs
 * queue behind one another on their own connection: logouts slow down, nothing else does.
 *
 * Built like the main connection (connections.ts: same settings, so the same master through the same
 * sentinels, or the same Cluster), with the same command timeout (a reply already received wins,
 * command-timeout.ts) and the same failover wait (its pipelines are held while it looks for the new master,
 * within STORE_FAILOVER_WAIT_MS).
 */
export interface AckConnection {
  redis: RedisClient;
  failover: FailoverWait;
  /** A session end's acknowledgement: the tombstone again with WAIT, on this connection; throws unconfirmed. */
  ack(key: string, value: string, ttlMs: number): Promise<void>;
}

export interface AckConnectionOptions {
  waitMs: number;
  failover: FailoverWaitOptions;
  logger: Logger;
  /** Outages as fault lines naming the Redis setting (shared with the main connection: one line per cause). */
  faults?: DependencyFaults;
}

/**
 * Opens the acknowledgement connection and warms it: connected (and on Cluster a link to every primary up)
 * before it returns, within the start-up wait of connectOrGoOn. If Redis was not reachable then, an
 * acknowledgement waits for the first connection at most the command timeout before it is sent (ioredis,
 * without an offline queue, would refuse it at once).
 */
export async function openAckConnection(config: RedisConfig, options: AckConnectionOptions): Promise<AckConnection> {
  const faults = options.faults;
  const { redis, failover } = openConnection(config, 'replica-acks', options.failover, {
    logger: options.logger,
    faults,
  });
  const logger = options.logger.child({ redisConnection: 'replica-acks' });
  const commandTimeoutMs = config.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  let everReady = false;
  redis.once('ready', () => {
    everReady = true;
  });
  await connectOrGoOn(redis, logger, faults);
  if (redis instanceof Cluster) await warmNodes(redis);
  const acknowledge = replicaAck(redis, options.waitMs, options.failover.waitMs);
  // One wait shared by the acknowledgements that come before the first connection (one listener, not one each).
  let waiting: Promise<void> | undefined;
  const firstReady = (): Promise<void> => {
    if (everReady || redis.status === 'ready') return Promise.resolve();
    waiting ??= readyWithin(redis, commandTimeoutMs).finally(() => {
      waiting = undefined;
    });
    return waiting;
  };
  return {
    redis,
    failover,
    async ack(key, value, ttlMs) {
      await firstReady();
      await acknowledge(key, value, ttlMs);
    },
  };
}

/** Resolves once `redis` is ready, or after `ms` (the command then fails as ioredis fails it). */
function readyWithin(redis: RedisClient, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    redis.once('ready', done);
  });
}

/**
 * A Cluster client opens its link to a node on that node's first command: a PING to every primary now, so
 * the first session ends do not pay for it. Failures are left to the commands that follow.
 */
async function warmNodes(cluster: Cluster): Promise<void> {
  if (cluster.status !== 'ready') return;
  await Promise.allSettled(cluster.nodes('master').map((node) => node.ping()));
}
