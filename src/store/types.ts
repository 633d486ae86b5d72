import type { SessionCache } from './redis/session-cache.js';
import type { DetachedQueryStore } from './detached-queries.js';
import type { DueQueue } from './due-queue.js';
import type { RedisClient } from './redis/client.js';
import type { OidcStores } from './oidc-stores.js';
import type { SecretDropStore } from './secret-drops.js';
import type { SessionStore } from './session-store.js';

/** Sealing lives in src/crypto/; re-exported for the stores' callers that name it beside them. */
export type { Cipher, SealContext } from '../crypto/crypto.js';

/**
 * Storage seams of the service. Two implementations each: Redis (shared, many instances) and memory
 * (embedded, single instance). Both pass the same conformance suite. Keys are per session id (sid);
 * implementations add the configured prefix and the `{sid}` hash tag themselves.
 */

/** Token state of one session. The token is stored encrypted; callers see it in clear. */
export interface TokenState {
  token: string;
  /** Epoch seconds. */
  expiresAt: number;
  /** Increases on every write, so a stale writer can be detected. */
  version: number;
  /** Epoch ms when this token was minted to replace one the data server refused; bounds re-mints. */
  replacedAt?: number;
  /**
   * What renews this token when it is newer than the session's own credential: an identity provider's
   * rotated refresh token (OIDC sessions). Sealed like the token; while set, the state lives as long as
   * its session, not only as long as the token, since the next refresh needs it.
   */
  renewWith?: string;
}

export interface TokenStore {
  get(sid: string): Promise<TokenState | null>;
  /**
   * Writes atomically; the key expires after ttlMs. False, and nothing written, when the session has ended
   * (its tombstone is there): a refresh that finishes after a logout on another instance must not bring the
   * ended session's token state back (the memory store serves one instance, whose logout waits for its
   * refreshes, and always writes).
   */
  set(sid: string, state: TokenState, ttlMs: number): Promise<boolean>;
  /** Deletes only if the stored token is still `token`; true when it deleted. */
  deleteIfToken(sid: string, token: string): Promise<boolean>;
  delete(sid: string): Promise<void>;
}

/** A lease with an owner id: SET NX PX, renewed while held, released by compare-and-delete. */
export interface LeaseStore {
  acquire(sid: string, owner: string, ttlMs: number): Promise<boolean>;
  renew(sid: string, owner: string, ttlMs: number): Promise<boolean>;
  release(sid: string, owner: string): Promise<boolean>;
  /** Resolves when the lease is gone or after maxWaitMs, whichever first. */
  waitForRelease(sid: string, maxWaitMs: number): Promise<void>;
}

/** Tombstones: a logged-out sid stays dead, so in-flight requests cannot resurrect it. */
export interface TombstoneStore {
  /** `why`: what ended it (an end reason, kept as the tombstone's value); '1' when not given, as before. */
  mark(sid: string, ttlMs: number, why?: string): Promise<void>;
  isDead(sid: string): Promise<boolean>;
  /**
   * What ended a session, as `mark` was told ('1' for tombstones written without a reason); null when there is
   * no tombstone. Answered from the request's own session load when it just read the tombstone (no second read).
   */
  endedAs(sid: string): Promise<string | null>;
}

export interface RateLimitResult {
  allowed: boolean;
  /** Milliseconds until the window frees a slot; 0 when allowed. */
  retryAfterMs: number;
}

/** A doubling wait: the `free`-th counted hit and every one after it block the key for baseMs, 2×, 4×… up to maxMs. */
export interface BackoffPolicy {
  free: number;
  baseMs: number;
  maxMs: number;
  /** Counted hits are forgotten this long after the last one (plus its wait). */
  forgetMs: number;
}

/** Counters for guesses: a hit is counted when allowed and can be taken back (`unhit`) when it was no guess. */
export interface RateLimiter {
  /** Fixed window: at most `max` hits per `windowMs` for one key. */
  hit(key: string, max: number, windowMs: number): Promise<RateLimitResult>;
  /** Refused while the key's wait runs (not counted then); otherwise counted, and may start the next wait. */
  backoff(key: string, policy: BackoffPolicy): Promise<RateLimitResult>;
  /** Takes back one counted hit of either kind, and the wait it started. */
  unhit(key: string): Promise<void>;
  reset(key: string): Promise<void>;
}

/** One session on its credential's record: its id, its login time (epoch ms) and what the caller stored beside it. */
export interface CredentialSessionEntry {
  sid: string;
  at: number;
  /** The caller's own text (sessions/principal-sessions.ts: the listing and whether the login finished); null when none. */
  info: string | null;
}

/**
 * The live sessions of each credential (docs/architecture.md, "Bounded per principal and per address"), by login
 * time: what caps the sessions one secret, user or IdP subject can hold, and what lists them (GET
 * /auth/sessions). Ids and the caller's short text per id are kept; whether a session still lives is asked
 * elsewhere.
 */
export interface CredentialSessions {
  /**
   * Records `sid`, logged in at `at` (epoch ms), under `credential`, with `info` beside it; the record lives
   * `ttlMs` after the credential's newest login. With more than `cap` sessions on record it answers all of
   * them, oldest first, for the caller to end the oldest live ones beyond the cap; otherwise nothing. Never
   * keeps more than `ceiling` (the oldest beyond go first), whatever the caller manages.
   */
  add(
    credential: string,
    sid: string,
    at: number,
    limits: { ttlMs: number; cap: number; ceiling: number },
    info?: string,
  ): Promise<CredentialSessionEntry[]>;
  /** Replaces the text beside `sid`, only while `sid` is on record (a removed id stays removed). */
  update(credential: string, sid: string, info: string): Promise<void>;
  remove(credential: string, sids: readonly string[]): Promise<void>;
  /** Every session on record, oldest login first (at most the ceiling `add` keeps). */
  list(credential: string): Promise<CredentialSessionEntry[]>;
}

/** Time a session record has left (its idle TTL), or null when it is gone or tombstoned. */
export type SessionRemainingMs = (sid: string) => Promise<number | null>;

/** Everything the service needs from storage, built once in the composition root. */
export interface Stores {
  tokens: TokenStore;
  leases: LeaseStore;
  tombstones: TombstoneStore;
  rateLimiter: RateLimiter;
  /** The session-end index the token sweeper works through (`<prefix>session-ends`). */
  sessionEnds: DueQueue;
  /** Time a session has left, or null when it is over; what the token sweeper asks before deleting. */
  sessionRemainingMs: SessionRemainingMs;
  /** Sessions per credential (`<prefix>creds:{credential id}` in Redis, or memory). */
  credentialSessions: CredentialSessions;
  /** Session records (`<prefix>sess:{sid}` in Redis, or memory). */
  sessionStore: SessionStore;
  /** Password-login secrets waiting to be dropped (`<prefix>secret-drops`). */
  secretDrops: SecretDropStore;
  /** Detached (GSQL-ASYNC) queries by the principal that started them (`<prefix>detached:{principal id}`). */
  detachedQueries: DetachedQueryStore;
  /** What single sign-on keeps besides sessions (`<prefix>oidc-idx:{…}`, `<prefix>oidc-jti:{…}`). */
  oidc: OidcStores;
  /**
   * The Redis connection these stores share; absent in memory mode. Per-principal quotas (src/quota) build
   * their counters on it (rate-limiter-flexible and their lease scripts), so they need the client itself.
   */
  redis?: RedisClient;
  /** Store commands waiting for a lost Redis connection right now (failover-wait.ts); absent in memory mode. */
  waiting?(): number;
  /** The session cache (Redis standalone and Sentinel with SESSION_CACHE on): its state, for tests and metrics. */
  sessionCache?: SessionCache;
  /** Resolves if storage answers, rejects otherwise (for readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
