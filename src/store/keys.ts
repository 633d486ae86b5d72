/**
 * Every Redis key name the service uses, in one place (the README's "Redis keys" lists the same). A
 * `{…}` hash tag puts the keys one operation touches in one Cluster slot, so multi-key scripts and MULTI
 * stay legal there: `{sid}` for a session's keys, `{credential id}` for a credential's list, `{hash}` for
 * each OIDC index key. The due queues are one key each (no tag needed: every operation touches only it).
 */
export interface RedisKeys {
  session(sid: string): string;
  token(sid: string): string;
  lease(sid: string): string;
  tombstone(sid: string): string;
  rateLimit(key: string): string;
  /** A credential's sessions: one key per credential id, so its own `{…}` hash tag. */
  credentialSessions(credential: string): string;
  /** What is kept beside each of a credential's sessions (login kind, graph, client, address): same `{…}` tag. */
  credentialSessionInfo(credential: string): string;
  /** The session-end index the session-end sweeper works through (one sorted set). */
  sessionEnds(): string;
  /** Password-login secrets waiting to be dropped (one sorted set). */
  secretDrops(): string;
  /** OIDC: an IdP session or subject's session ids, for back-channel logout. */
  oidcIndex(key: string): string;
  /** OIDC: logout token ids and completed logins already used. */
  oidcUsed(key: string): string;
  /**
   * Per-principal quotas (src/quota): the prefix of a rule's rate counters; rate-limiter-flexible appends
   * `:<principal id>` (and the burst counter `:burst:<principal id>`).
   */
  quotaCounters(rule: string): string;
  /** Per-principal quotas: a principal's in-flight leases, overall or for one rule, under one hash tag. */
  inflight(principal: string, rule?: string): string;
  /** Detached (GSQL-ASYNC) queries a principal started: one sorted set per principal, its own `{…}` tag. */
  detachedQueries(principal: string): string;
  /**
   * The session cache's set-up probe (store/redis/session-cache.ts): read with tracking on, written once, its
   * invalidation awaited, deleted; lives at most 10 s. `{id}` empty gives the prefix of every probe key.
   */
  cacheProbe(id: string): string;
}

/** The keys of a session's own slot; the name older code and tests know. */
export type SessionKeys = RedisKeys;

export function redisKeys(prefix: string): RedisKeys {
  return {
    session: (sid) => `${prefix}sess:{${sid}}`,
    token: (sid) => `${prefix}tok:{${sid}}`,
    lease: (sid) => `${prefix}lease:{${sid}}`,
    tombstone: (sid) => `${prefix}dead:{${sid}}`,
    rateLimit: (key) => `${prefix}rl:${key}`,
    credentialSessions: (credential) => `${prefix}creds:{${credential}}`,
    credentialSessionInfo: (credential) => `${prefix}creds-info:{${credential}}`,
    sessionEnds: () => `${prefix}session-ends`,
    secretDrops: () => `${prefix}secret-drops`,
    oidcIndex: (key) => `${prefix}oidc-idx:{${key}}`,
    oidcUsed: (key) => `${prefix}oidc-jti:{${key}}`,
    quotaCounters: (rule) => `${prefix}quota:${rule}`,
    cacheProbe: (id) => (id === '' ? `${prefix}cache-probe:` : `${prefix}cache-probe:{${id}}`),
    detachedQueries: (principal) => `${prefix}detached:{${principal}}`,
    inflight: (principal, rule) => `${prefix}inflight:{${principal}}${rule === undefined ? '' : `:${rule}`}`,
  };
}

/** @deprecated name: `redisKeys`. */
export const sessionKeys = redisKeys;
