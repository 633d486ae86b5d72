import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { DependencyFaults } from '../../observability/dependency-faults.js';
import type { Logger } from '../../observability/logger.js';
import { trustAlso } from '../../tls-trust.js';

export type RedisClient = Redis | Cluster;

export interface HostPort {
  host: string;
  port: number;
}

/** Timing knobs; the defaults keep a dead or hung Redis from holding a request much over a second. */
export interface RedisTuning {
  commandTimeoutMs?: number;
  connectTimeoutMs?: number;
  maxReconnectDelayMs?: number;
}

/** TLS settings shared by every mode: on or off, and an extra CA (PEM) trusted besides the public roots. */
interface RedisTls {
  tls?: boolean;
  ca?: string;
}

export type RedisConfig = RedisTuning &
  RedisTls &
  (
    | { mode: 'standalone'; url: string; username?: string; password?: string }
    | {
        mode: 'sentinel';
        sentinels: readonly HostPort[];
        name: string;
        username?: string;
        password?: string;
        sentinelPassword?: string;
      }
    | { mode: 'cluster'; nodes: readonly HostPort[]; username?: string; password?: string }
  );

/** REDIS_COMMAND_TIMEOUT_MS's default. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 800;

/** How long a dropped connection may take to close before it is destroyed (see `disconnectTimeout` below). */
const DISCONNECT_TIMEOUT_MS = 100;

/**
 * Builds an ioredis client that fails fast instead of queueing: no offline queue, a command timeout
 * for a hung server, and endless reconnects with capped backoff so the service heals on its own.
 * The client is lazy: the composition root calls `connect()` (it rejects while Redis is down, yet the
 * client keeps reconnecting in the background).
 */
export function createRedisClient(
  cfg: RedisConfig,
  deps: { logger?: Logger; faults?: DependencyFaults } = {},
): RedisClient {
  const maxDelay = cfg.maxReconnectDelayMs ?? 1000;
  const backoff = (times: number): number => Math.min(50 * 2 ** Math.min(times, 10), maxDelay);
  const common: RedisOptions = {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: cfg.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    connectTimeout: cfg.connectTimeoutMs ?? 2000,
    retryStrategy: backoff,
    // A command on the wire when the connection dropped may have run: never send it again on reconnect
    // (ioredis's default does, for every one of them). A read is issued again by failover-wait.ts instead.
    autoResendUnfulfilledCommands: false,
    // How long a connection being dropped may take to close before it is destroyed (ioredis: 2000 ms). A
    // Sentinel client drops its connection when the sentinels announce a new master; to a frozen old master
    // (SIGSTOP, a partition) the close never completes, so every request failed for 2 s more after the
    // promotion (test/integration/failover/sentinel-frozen.test.ts). A connection dropped is not used again.
    disconnectTimeout: DISCONNECT_TIMEOUT_MS,
  };

  const tls: ConnectionOptions = cfg.ca === undefined ? {} : trustAlso(cfg.ca);

  let client: RedisClient;
  if (cfg.mode === 'standalone') {
    // Credentials and TLS in the URL (rediss://) win; these only fill what the URL leaves out.
    client = new Redis(cfg.url, {
      ...common,
      ...(cfg.username === undefined ? {} : { username: cfg.username }),
      ...(cfg.password === undefined ? {} : { password: cfg.password }),
      ...(cfg.tls ? { tls } : {}),
    });
  } else if (cfg.mode === 'sentinel') {
    client = new Redis({
      ...common,
      sentinels: cfg.sentinels.map(({ host, port }) => ({ host, port })),
      name: cfg.name,
      username: cfg.username,
      password: cfg.password,
      sentinelPassword: cfg.sentinelPassword,
      sentinelRetryStrategy: backoff,
      // A hung sentinel accepts the connection and never answers; without this, resolving the master
      // would wait on it forever instead of asking the next one.
      sentinelCommandTimeout: common.commandTimeout,
      // A switchover leaves the old master up and writable until sentinels demote it seconds later;
      // listening for +switch-master moves us at once, so no session is written where it will be wiped.
      failoverDetector: true,
      sentinelReconnectStrategy: (times: number) => Math.min(1000 * times, 10_000),
      // Still on a demoted master (a failover that did not kill clients): reconnect via the sentinels.
      reconnectOnError: (err: Error) => err.message.startsWith('READONLY'),
      // TLS on both hops: to the sentinels and to the master they point at.
      ...(cfg.tls ? { tls, sentinelTLS: tls, enableTLSForSentinelMode: true } : {}),
    });
  } else {
    const { enableOfflineQueue, retryStrategy, lazyConnect, ...nodeOptions } = common;
    client = new Cluster(
      cfg.nodes.map(({ host, port }) => ({ host, port })),
      {
        lazyConnect,
        enableOfflineQueue,
        clusterRetryStrategy: backoff,
        // ioredis sends a command again when its node's connection closed, written or not, so a write that
        // ran on a primary just before it died would run twice. failover-wait.ts issues again only a try
        // that provably never ran, or a read.
        retryDelayOnFailover: 0,
        // CLUSTERDOWN (not run) comes back to failover-wait.ts at once, which tries again with a fresh
        // command: ioredis's own retries every 100 ms share one 800 ms command timeout, which then fires
        // while the 8th write is on the wire, so a write failed as "may have run". MOVED, ASK and TRYAGAIN
        // stay ioredis's (answered at once, they do not wait out the timeout).
        retryDelayOnClusterDown: 0,
        // Replicas lag: a token read there could miss a fresh mint and start a second one.
        scaleReads: 'master',
        redisOptions: {
          ...nodeOptions,
          username: cfg.username,
          password: cfg.password,
          ...(cfg.tls ? { tls } : {}),
        },
      },
    );
  }
  if (cfg.mode === 'sentinel') forgetSwitchWatchOnClose(client as Redis);
  // Always listen: an 'error' event without a listener makes ioredis print to stderr on every retry.
  logOutages(client, deps.logger, deps.faults);
  return client;
}

/**
 * The part of ioredis's SentinelConnector (5.x) this reaches into; were it renamed, the detector would stay
 * and test/integration/redis-ha/sentinel-switch-watch.test.ts fails.
 */
interface SentinelConnectorInternals {
  failoverDetector: { cleanup(): void } | null;
}

/**
 * A Sentinel client listens for +switch-master on the sentinels from each connection it makes (its
 * failover detector), and ioredis stops listening only when the next connection is made. A detector of a
 * connection already lost therefore still acts on the failover's +switch-master, by disconnecting the
 * client; while the client is asking the sentinels for the new master (as it is, over and over, while the
 * master is gone), that ends its connect attempt, and ioredis then gives up on the client for good
 * (status "end", every command "Connection is closed."). Seen in the Sentinel failover test on a loaded
 * machine: the stores' connections ended (main, acknowledgements, and the session cache's two, which
 * nothing connected again, so the cache stayed bypassed), and waiting requests failed at once.
 * Here a lost connection's detector stops listening when the connection closes; the reconnect asks the
 * sentinels anyway. Duplicates (the session cache's connections) get the same.
 */
function forgetSwitchWatchOnClose(client: Redis): void {
  client.on('close', () => {
    const connector = (client as unknown as { connector?: Partial<SentinelConnectorInternals> }).connector;
    const detector = connector?.failoverDetector;
    if (!detector) return;
    detector.cleanup();
    connector.failoverDetector = null;
  });
  const duplicate = client.duplicate.bind(client);
  client.duplicate = (override?: Partial<RedisOptions>): Redis => {
    const copy = duplicate(override);
    forgetSwitchWatchOnClose(copy);
    return copy;
  };
}

/**
 * One warning per outage (not a line per failed command or reconnect), naming the fault, the address tried,
 * the Redis setting and a hint (`faults`), never a stack; one notice on recovery.
 */
function logOutages(client: RedisClient, logger: Logger | undefined, faults: DependencyFaults | undefined): void {
  let down = false;
  client.on('error', (err: Error & { code?: string }) => {
    const fault = faults?.note('redis', err);
    if (down) return;
    down = true;
    logger?.warn({ ...fault, redisError: { message: err.message, code: err.code } }, 'redis unavailable; reconnecting');
  });
  client.on('ready', () => {
    faults?.answered('redis');
    if (!down) return;
    down = false;
    logger?.info('redis connection restored');
  });
}
