import { performance } from 'node:perf_hooks';
import { AppError } from '../errors.js';
import type { Logger } from '../observability/logger.js';
import { traced, type Tracing } from '../observability/tracing.js';
import type { Metrics } from '../observability/metrics.js';
import type { LeaseStore, TokenState, TokenStore } from '../store/types.js';
import { maskSecret } from '@tigergraph-bff/client';
import type { LeaseRunner } from './lease-runner.js';
import { endsSession } from './map-upstream-error.js';
import { isFresh, isUsable, sameState, stateTtlFor, type RenewableGrant } from './refresh-policy.js';
import type { UpstreamCalls } from './upstream-calls.js';

export interface EnsureRequest {
  sid: string;
  credential: string;
  sessionTtlMs: number;
  /** The state the caller saw before asking; anything newer that is usable is an answer. */
  seen: TokenState | null;
  /** A token the data server refused: never returned, never refreshed; deleted upstream once replaced. */
  rejected?: string;
  /** The graph the session's login named: every token of the session is minted for it. */
  graph?: string;
}

/** The refused token was itself minted as a replacement within the re-mint window: no further mint. */
export class RemintRefused extends Error {
  constructor() {
    super('token re-minted too recently');
  }
}

/**
 * Brings one session's token up to date across instances: whoever takes the lease calls upstream
 * once; everyone else waits for that lease and re-reads the state. Waiting is bounded by `waitMs` of
 * real time (the injected clock may stand still in tests).
 */
export function createRefreshCoordinator(deps: {
  tokens: TokenStore;
  leases: LeaseStore;
  lease: LeaseRunner;
  upstream: UpstreamCalls;
  refreshBeforeSec: number;
  waitMs: number;
  /** At most one re-mint after a refusal per session per this many ms. */
  remintWindowMs: number;
  now: () => number;
  metrics?: Metrics;
  logger: Logger;
  tracing?: Tracing;
  /** A refused token was replaced by a new mint: once per replacement, by the instance that made it. */
  onReplaced?: (sid: string) => void;
}) {
  const { tokens, leases, upstream, now, logger } = deps;

  const answers = (s: TokenState, req: EnsureRequest): boolean =>
    s.token !== req.rejected &&
    isUsable(s, now()) &&
    (isFresh(s, now(), deps.refreshBeforeSec) || !sameState(s, req.seen));

  const fallbackOf = (s: TokenState | null, req: EnsureRequest): TokenState | null =>
    s !== null && s.token !== req.rejected && isUsable(s, now()) ? s : null;

  /** A token that keeps being refused right after its own re-mint is refused for a reason a new one shares. */
  const remintedRecently = (s: TokenState | null, req: EnsureRequest): boolean =>
    s !== null && s.token === req.rejected && s.replacedAt !== undefined && now() - s.replacedAt < deps.remintWindowMs;

  /** The lease holder's part: re-read, then one upstream call and one write. */
  async function renewHeld(req: EnsureRequest, current: TokenState | null): Promise<TokenState> {
    if (current !== null && answers(current, req)) return current;
    if (remintedRecently(current, req)) throw new RemintRefused();
    const refreshable = fallbackOf(current, req);
    // A rotated credential (an IdP's newer refresh token) supersedes the session's own from then on.
    const credential = current?.renewWith ?? req.credential;
    const grant: RenewableGrant = refreshable
      ? await upstream.refresh(credential, refreshable.token, req.graph)
      : await upstream.mint(credential, 'session', req.graph);
    const replacing = req.rejected !== undefined && refreshable === null;
    const renewWith = grant.renewWith ?? current?.renewWith;
    const state: TokenState = {
      token: grant.token,
      expiresAt: grant.expiresAt,
      version: (current?.version ?? 0) + 1,
      ...(replacing && { replacedAt: now() }),
      ...(renewWith !== undefined && { renewWith }),
    };
    if (!isUsable(state, now())) {
      throw new AppError('upstream_error', 'The data server issued a token that has already expired');
    }
    const superseding = await supersededBy(req, state, grant.token);
    if (superseding) return superseding;
    if (!(await tokens.set(req.sid, state, stateTtlFor(state, now(), req.sessionTtlMs)))) {
      return endedMeanwhile(req, state, grant.token);
    }
    if (replacing) {
      deps.onReplaced?.(req.sid);
      await dropReplaced(req);
    }
    return state;
  }

  /**
   * The session ended (a logout, on any instance) while this holder's upstream call ran: the logout has
   * already read and deleted the token state, so the token just issued is nobody's. It is deleted upstream
   * and the request fails as for any ended session; no fallback to an older token may hide that.
   */
  async function endedMeanwhile(req: EnsureRequest, mine: TokenState, token: string): Promise<never> {
    logger.warn({ sid: maskSecret(req.sid) }, 'session ended during a token refresh; deleting the new token');
    await deleteUpstream(mine.renewWith ?? req.credential, token, 'session_end');
    throw new AppError('session_expired', 'The session ended; log in again');
  }

  /**
   * A holder stalled past its lease (a GC pause, SIGSTOP, a slow disk) comes back after another instance
   * took the lease and wrote a newer state: writing now would put an older grant over the newer one and
   * leave that one alive upstream with nobody holding it. So it keeps the newer state and drops its own
   * late token instead (unless a refresh returned the very token now stored). A state that still holds the
   * refused token is never the newer one, whatever its version: this holder was asked to replace it.
   */
  async function supersededBy(req: EnsureRequest, mine: TokenState, token: string): Promise<TokenState | null> {
    const stored = await tokens.get(req.sid);
    if (stored === null || stored.version < mine.version || !isUsable(stored, now())) return null;
    if (stored.token === req.rejected) return null;
    logger.warn({ sid: maskSecret(req.sid) }, 'token lease lapsed during the upstream call; keeping the newer token');
    if (stored.token !== token) await deleteUpstream(mine.renewWith ?? req.credential, token, 'superseded');
    return stored;
  }

  /** Best effort: a refused token left alive upstream is what piles up; a failure here only costs that. */
  async function dropReplaced(req: EnsureRequest): Promise<void> {
    const failed = await deleteUpstream(req.credential, req.rejected!, 'replaced');
    if (failed)
      logger.warn(
        { err: { code: (failed.err as { code?: unknown } | null)?.code }, sid: maskSecret(req.sid) },
        'could not delete a replaced token upstream',
      );
  }

  /**
   * Deletes a token upstream that nobody will use (`reason`: why), counted in tgbff_token_deletes_total by
   * result; never rejects: a failure is returned, for a caller that reports it.
   */
  function deleteUpstream(
    credential: string,
    token: string,
    reason: 'replaced' | 'superseded' | 'session_end',
  ): Promise<{ err: unknown } | undefined> {
    return upstream.remove(credential, token).then(
      () => {
        deps.metrics?.tokenDeletes.inc({ reason, result: 'ok' });
        return undefined;
      },
      (err: unknown) => {
        deps.metrics?.tokenDeletes.inc({ reason, result: 'error' });
        return { err };
      },
    );
  }

  async function ensure(req: EnsureRequest): Promise<TokenState> {
    const deadline = performance.now() + deps.waitMs;
    let latest = req.seen;
    let waited = false;
    try {
      for (;;) {
        const held = await deps.lease.tryWith(req.sid, async () => {
          latest = await tokens.get(req.sid);
          return renewHeld(req, latest);
        });
        if (held.acquired) {
          if (waited) deps.metrics?.leaseWaits.inc({ outcome: 'took_over' });
          return held.value;
        }
        waited = true;
        const remaining = deadline - performance.now();
        if (remaining <= 0) break;
        await traced(deps.tracing, 'token.lease_wait', () => leases.waitForRelease(req.sid, remaining));
        latest = await tokens.get(req.sid);
        if (latest !== null && answers(latest, req)) {
          deps.metrics?.leaseWaits.inc({ outcome: 'token' });
          return latest;
        }
      }
    } catch (err) {
      // A refresh that cannot be done right now must not fail a request whose token still works;
      // only a dead credential ends the session at once.
      const fallback = fallbackOf(latest, req);
      if (endsSession(err) || fallback === null) throw err;
      logger.warn({ err, sid: maskSecret(req.sid) }, 'token refresh failed; using the current token');
      return fallback;
    }
    const fallback = fallbackOf(latest, req);
    deps.metrics?.leaseWaits.inc({ outcome: fallback ? 'stale' : 'unavailable' });
    if (fallback) return fallback;
    throw new AppError('token_unavailable', 'No upstream token is available right now; try again', {
      headers: { 'Retry-After': '1' },
    });
  }

  return { ensure };
}
