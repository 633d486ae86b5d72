import { Invalid, type HostPort, type KeyIssue } from './fields.js';

interface RedisCommon {
  prefix: string;
  username?: string;
  password?: string;
  tls: boolean;
  /** PEM text of REDIS_CA_FILE (trusted besides the public roots), read once at start-up. */
  ca?: string;
  commandTimeoutMs: number;
  /** How long store commands wait for a lost connection (a failover) before failing; 0: not at all. */
  failoverWaitMs: number;
  /** How many store commands may wait for it at once; beyond, they fail at once. */
  failoverWaiters: number;
  /**
   * Sentinel and Cluster: how long a logout's tombstone waits for a replica's acknowledgement (WAIT) before
   * the logout answers 503; 0: not at all.
   */
  logoutReplicaWaitMs: number;
  /** Warm sessions from process memory (CLIENT TRACKING); false: off. Not used on Cluster. */
  sessionCache: { max: number; ttlMs: number } | false;
}

export type RedisConfig =
  | { mode: 'memory'; prefix: string }
  | ({ mode: 'standalone'; url: string } & RedisCommon)
  | ({ mode: 'sentinel'; sentinels: HostPort[]; name: string; sentinelPassword?: string } & RedisCommon)
  | ({ mode: 'cluster'; nodes: HostPort[] } & RedisCommon);

export interface RedisInput {
  REDIS_URL?: string | undefined;
  REDIS_SENTINELS?: HostPort[] | undefined;
  REDIS_SENTINEL_NAME?: string | undefined;
  REDIS_SENTINEL_PASSWORD?: string | undefined;
  REDIS_CLUSTER_NODES?: HostPort[] | undefined;
  REDIS_USERNAME?: string | undefined;
  REDIS_PASSWORD?: string | undefined;
  REDIS_TLS: boolean;
  REDIS_CA_FILE?: string | undefined;
  REDIS_COMMAND_TIMEOUT_MS: number;
  STORE_FAILOVER_WAIT_MS: number;
  STORE_FAILOVER_WAITERS: number;
  REDIS_LOGOUT_REPLICA_WAIT_MS?: number | undefined;
  SESSION_CACHE: boolean;
  SESSION_CACHE_MAX: number;
  SESSION_CACHE_TTL_MS: number;
  REDIS_PREFIX: string;
}

const MODE_KEYS = ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'] as const;

/** Picks the one Redis mode the environment names; none means the embedded memory store. */
export function redisMode(v: RedisInput): { redis?: RedisConfig; issues: KeyIssue[] } {
  const issues: KeyIssue[] = [];
  const named = MODE_KEYS.filter((k) => v[k] !== undefined);
  if (named.length > 1) {
    for (const key of named) issues.push({ key, message: `only one Redis mode may be set, found ${named.join(', ')}` });
  }
  const sentinelMode = named.length === 1 && named[0] === 'REDIS_SENTINELS';
  if (sentinelMode && v.REDIS_SENTINEL_NAME === undefined) {
    issues.push({ key: 'REDIS_SENTINEL_NAME', message: 'is required with REDIS_SENTINELS' });
  }
  if (!sentinelMode) {
    for (const key of ['REDIS_SENTINEL_NAME', 'REDIS_SENTINEL_PASSWORD'] as const) {
      if (v[key] !== undefined) issues.push({ key, message: 'only applies with REDIS_SENTINELS' });
    }
  }
  if (named.length === 0) {
    for (const key of ['REDIS_USERNAME', 'REDIS_PASSWORD', 'REDIS_CA_FILE'] as const) {
      if (v[key] !== undefined)
        issues.push({ key, message: 'is set but no Redis mode (REDIS_URL, REDIS_SENTINELS, REDIS_CLUSTER_NODES) is' });
    }
  }
  const tls = v.REDIS_TLS || (v.REDIS_URL?.startsWith('rediss:') ?? false);
  if (named.length === 1 && v.REDIS_CA_FILE !== undefined && !tls) {
    issues.push({ key: 'REDIS_CA_FILE', message: 'only applies with TLS: set REDIS_TLS=true or use a rediss:// URL' });
  }
  if (v.REDIS_LOGOUT_REPLICA_WAIT_MS !== undefined && v.REDIS_LOGOUT_REPLICA_WAIT_MS >= v.REDIS_COMMAND_TIMEOUT_MS) {
    issues.push({
      key: 'REDIS_LOGOUT_REPLICA_WAIT_MS',
      message: `must be below REDIS_COMMAND_TIMEOUT_MS (${v.REDIS_COMMAND_TIMEOUT_MS}): WAIT blocks in Redis, and the client would time it out first`,
    });
  }
  if (issues.length > 0) return { issues };

  const common: RedisCommon = {
    prefix: v.REDIS_PREFIX,
    ...(v.REDIS_USERNAME !== undefined && { username: v.REDIS_USERNAME }),
    ...(v.REDIS_PASSWORD !== undefined && { password: v.REDIS_PASSWORD }),
    tls,
    ...(v.REDIS_CA_FILE !== undefined && { ca: v.REDIS_CA_FILE }),
    commandTimeoutMs: v.REDIS_COMMAND_TIMEOUT_MS,
    failoverWaitMs: v.STORE_FAILOVER_WAIT_MS,
    failoverWaiters: v.STORE_FAILOVER_WAITERS,
    // Half the command timeout by default: a replica on the same network acknowledges within milliseconds.
    logoutReplicaWaitMs: v.REDIS_LOGOUT_REPLICA_WAIT_MS ?? Math.floor(v.REDIS_COMMAND_TIMEOUT_MS / 2),
    sessionCache: v.SESSION_CACHE &&
      v.SESSION_CACHE_MAX > 0 && { max: v.SESSION_CACHE_MAX, ttlMs: v.SESSION_CACHE_TTL_MS },
  };
  if (v.REDIS_URL !== undefined) return { redis: { mode: 'standalone', url: v.REDIS_URL, ...common }, issues };
  if (v.REDIS_SENTINELS !== undefined) {
    const redis: RedisConfig = {
      mode: 'sentinel',
      sentinels: v.REDIS_SENTINELS,
      name: v.REDIS_SENTINEL_NAME as string,
      ...(v.REDIS_SENTINEL_PASSWORD !== undefined && { sentinelPassword: v.REDIS_SENTINEL_PASSWORD }),
      ...common,
    };
    return { redis, issues };
  }
  if (v.REDIS_CLUSTER_NODES !== undefined)
    return { redis: { mode: 'cluster', nodes: v.REDIS_CLUSTER_NODES, ...common }, issues };
  return { redis: { mode: 'memory', prefix: v.REDIS_PREFIX }, issues };
}

/** redis:// or rediss:// (credentials in the URL are allowed; they are never echoed). */
export function redisUrl(raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'redis:' && url.protocol !== 'rediss:')) {
    throw new Invalid('must be a redis:// or rediss:// URL');
  }
  return raw;
}
