import { silentLogger, type Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { Tracing } from '../observability/tracing.js';
import type { Audit } from '../observability/audit.js';
import type { LeaseStore, TokenState, TokenStore } from '../store/types.js';
import type { TokenApi, TokenGrant } from '@tigergraph-bff/client';
import { createLeaseRunner } from './lease-runner.js';
import { RemintRefused, createRefreshCoordinator } from './refresh-coordinator.js';
import { isFresh, isUsable, stateTtlMs } from './refresh-policy.js';
import { createSingleFlight } from './single-flight.js';
import { TokenMemo } from './token-memo.js';
import { createUpstreamCalls } from './upstream-calls.js';

/** Keeps each session's TigerGraph token valid; knows nothing of HTTP frameworks. */
export interface TokenBroker {
  /**
   * Verifies a credential at login by minting a token; 401 invalid_credentials if it does not work, 400
   * graph_not_found if TigerGraph says the login's `graph` does not exist or is not the credential's.
   */
  mint(credential: string, graph?: string): Promise<TokenGrant>;
  /** Stores a grant for a session (after login regenerated the sid). */
  adopt(sid: string, grant: TokenGrant, sessionTtlMs: number): Promise<void>;
  /**
   * A token valid now and not due for refresh, minting/refreshing under single-flight, for `graph` (the
   * graph the session's login named, so a refresh or re-mint never widens the token to all graphs). When the
   * refresh cannot be done right now, a due but unexpired token is returned rather than an error.
   */
  token(sid: string, credential: string, sessionTtlMs: number, graph?: string): Promise<TokenState>;
  /**
   * Upstream refused `token` itself: mint once (single-flight), delete the refused one upstream, return
   * the new state; null when that token was itself minted within the re-mint window (no pile-up).
   */
  replaceRejected(
    sid: string,
    credential: string,
    token: string,
    sessionTtlMs: number,
    graph?: string,
  ): Promise<TokenState | null>;
  /**
   * Session end: delete the token upstream (a missing token is fine) and the token state; true when a
   * token was deleted upstream. With keepOnFailure (the sweeper, which retries) a failed delete keeps the state.
   */
  revoke(sid: string, credential: string, opts?: { keepOnFailure?: boolean }): Promise<boolean>;
  /**
   * A login that did not complete: delete the token it minted upstream, whether or not it was stored (a
   * token that never reached the store is one the sweeper cannot find). Rejects when the delete failed.
   */
  discard(credential: string, grant: TokenGrant): Promise<void>;
}

export interface TokenBrokerDeps {
  api: TokenApi;
  tokens: TokenStore;
  leases: LeaseStore;
  /** Requested token lifetime, seconds. */
  lifetimeSec: number;
  /** Refresh once less than this many seconds remain. */
  refreshBeforeSec: number;
  /** Cross-instance lease TTL, renewed every ttl/3 while the upstream call runs. Default 5000. */
  leaseTtlMs?: number;
  /**
   * The token state outlives its session by this much (ms), so the session-end sweeper can still read
   * the token after the session blob expired. Default 0.
   */
  stateGraceMs?: number;
  /** At most one re-mint after a refusal per session per this many ms. Default REMINT_WINDOW_MS. */
  remintWindowMs?: number;
  /** Longest a request waits for another holder's refresh. Default 15000 (above the client's 10 s timeout). */
  waitMs?: number;
  /** Clock, epoch ms. */
  now?: () => number;
  instanceId: string;
  /**
   * Serve token() from this instance's last read of a session's state for this long (ms) while it is
   * fresh, instead of reading the store per request. A token another instance replaced meanwhile costs
   * at most one refused upstream call (the 401 path replaces it); refreshes always read the store.
   * 0 or absent: read the store every time.
   */
  readCacheMs?: number;
  metrics?: Metrics;
  logger?: Logger;
  /** OpenTelemetry: spans for the token calls and lease waits. Absent: tracing is off. */
  tracing?: Tracing;
  /** The audit trail: an event per token call (minted, refreshed, deleted). */
  audit?: Audit;
  /**
   * A refused token was replaced by a new mint: called once per replacement, by the instance that minted
   * (not once per request that waited for it). The service writes the audit trail's `token.reminted` here.
   */
  onReplaced?: (sid: string) => void;
}

/**
 * What the service uses for readCacheMs. Token state changes only when a token is refreshed (a due
 * memo is never served, so that still reads the store) or replaced after a refusal (the stale token
 * then costs one refused call and a replay). So the memo can outlive a user's pause between clicks,
 * which is what keeps sporadic sessions near one Redis command per request.
 */
export const DEFAULT_TOKEN_READ_CACHE_MS = 30_000;

/**
 * A refused token is replaced at most once per session in this window. Long enough that a data server
 * refusing every token (misread permission answer, clock skew) costs one token per 10 s, not one per
 * request; short enough that a token revoked upstream twice in a row recovers on the next click.
 */
export const REMINT_WINDOW_MS = 10_000;

export function createTokenBroker(deps: TokenBrokerDeps): TokenBroker {
  if (!(deps.refreshBeforeSec >= 0 && deps.refreshBeforeSec < deps.lifetimeSec)) {
    // Otherwise every token would be due for refresh the moment it is issued.
    throw new RangeError('refreshBeforeSec must be at least 0 and below lifetimeSec');
  }
  const now = deps.now ?? Date.now;
  const grace = (sessionTtlMs: number) => sessionTtlMs + (deps.stateGraceMs ?? 0);
  const logger = deps.logger ?? silentLogger();
  const upstream = createUpstreamCalls(deps);
  const flight = createSingleFlight<TokenState>();
  const fresh = (s: TokenState | null): s is TokenState => s !== null && isFresh(s, now(), deps.refreshBeforeSec);
  const lastsSession = (s: TokenState | null, sessionTtlMs: number): boolean =>
    s !== null && isUsable(s, now()) && s.expiresAt * 1000 >= now() + sessionTtlMs;
  const memo = deps.readCacheMs ? new TokenMemo(deps.readCacheMs, fresh) : null;
  const coordinator = createRefreshCoordinator({
    tokens: deps.tokens,
    leases: deps.leases,
    lease: createLeaseRunner({
      leases: deps.leases,
      ttlMs: deps.leaseTtlMs ?? 5000,
      instanceId: deps.instanceId,
      logger,
    }),
    upstream,
    refreshBeforeSec: deps.refreshBeforeSec,
    waitMs: deps.waitMs ?? 15_000,
    remintWindowMs: deps.remintWindowMs ?? REMINT_WINDOW_MS,
    now,
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    ...(deps.tracing && { tracing: deps.tracing }),
    logger,
    ...(deps.onReplaced && { onReplaced: deps.onReplaced }),
  });

  /** Joining a refresh another request of this instance runs is a wait too, as on another instance's lease. */
  const shared = (sid: string, work: () => Promise<TokenState>): Promise<TokenState> => {
    if (flight.has(sid)) deps.metrics?.leaseWaits.inc({ outcome: 'coalesced' });
    return flight.run(sid, work);
  };

  return {
    mint: (credential, graph) => upstream.mint(credential, 'login', graph),

    async adopt(sid, grant, sessionTtlMs) {
      memo?.forget(sid);
      const state: TokenState = { token: grant.token, expiresAt: grant.expiresAt, version: 1 };
      await deps.tokens.set(sid, state, stateTtlMs(grant.expiresAt, now(), grace(sessionTtlMs)));
    },

    async token(sid, credential, sessionTtlMs, graph) {
      const seen = await (memo ? memo.read(sid, () => deps.tokens.get(sid)) : deps.tokens.get(sid));
      // A token that already lasts as long as its session needs no refresh: one would outlive the session.
      if (fresh(seen) || lastsSession(seen, sessionTtlMs)) return seen!;
      const since = memo?.now() ?? 0;
      const state = await shared(sid, () =>
        coordinator.ensure({
          sid,
          credential,
          sessionTtlMs: grace(sessionTtlMs),
          seen,
          ...(graph !== undefined && { graph }),
        }),
      );
      memo?.remember(sid, state, since);
      return state;
    },

    async replaceRejected(sid, credential, token, sessionTtlMs, graph) {
      memo?.forget(sid);
      const request = {
        sid,
        credential,
        sessionTtlMs: grace(sessionTtlMs),
        seen: null,
        rejected: token,
        ...(graph !== undefined && { graph }),
      };
      try {
        const joined = await shared(sid, () => coordinator.ensure(request));
        if (joined.token !== token) return joined;
        // The flight we joined had started from the rejected token and handed it back. A fresh ensure
        // never returns it; the lease still keeps it to one mint across callers.
        return await coordinator.ensure(request);
      } catch (err) {
        if (err instanceof RemintRefused) return null;
        throw err;
      }
    },

    async revoke(sid, credential, opts) {
      // A refresh running here could otherwise write a new token after we deleted the state.
      await flight.settled(sid);
      memo?.forget(sid);
      const state = await deps.tokens.get(sid);
      const live = state !== null && isUsable(state, now());
      try {
        if (live) await upstream.remove(state.renewWith ?? credential, state.token);
      } catch (err) {
        if (!opts?.keepOnFailure) await deps.tokens.delete(sid);
        throw err;
      }
      await deps.tokens.delete(sid);
      return live;
    },

    discard: (credential, grant) => upstream.remove(credential, grant.token),
  };
}
