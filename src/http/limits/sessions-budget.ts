import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { Audit } from '../../observability/audit.js';
import type { RateLimiter } from '../../store/types.js';
import { rateLimited } from './rate-limited.js';

/** Which of the session routes a call is: the listing, or one of the ends (DELETE /auth/sessions…). */
export type SessionsRoute = 'list' | 'end';

export interface SessionsBudget {
  /**
   * Counts one call of the principal's (its credential id: the TigerGraph user, the IdP subject or the
   * secret's keyed id) to GET or DELETE /auth/sessions…, or throws 429 rate_limited with Retry-After.
   */
  take(principal: string, route: SessionsRoute): Promise<void>;
}

/**
 * The budget of the session routes (SESSIONS_ROUTE_BUDGET per LOGIN_RATE_WINDOW, per principal, shared by
 * every instance through the login budget's counters): a listing or an end costs one script and up to two
 * commands per id on the principal's record (at most SESSIONS_PER_CREDENTIAL + 64 ids), and an end calls
 * TigerGraph, so one session looping on them must not turn that into a Redis or upstream flood. Counted per
 * principal, not per session: a person with many sessions (or many logins) gets no more calls for it.
 * Logout (`everywhere` too) is never counted: ending one's own session must always work.
 */
export function createSessionsBudget(deps: {
  limiter: RateLimiter;
  perPrincipal: number;
  windowSec: number;
  metrics: Metrics;
  audit?: Audit;
  logger: Logger;
}): SessionsBudget {
  const windowMs = deps.windowSec * 1000;
  return {
    async take(principal, route) {
      const result = await deps.limiter.hit(`sessions:cred:${principal}`, deps.perPrincipal, windowMs);
      if (result.allowed) return;
      deps.metrics.sessionRoutesLimited.inc({ route });
      deps.audit?.emit({ event: 'limiter.tripped', limit: 'session_routes', scope: 'principal', route });
      // The principal's keyed id (first characters), never a secret or a user name.
      deps.logger.warn(
        { route, credential: principal.slice(0, 8), retryAfterMs: result.retryAfterMs },
        'session routes budget spent',
      );
      throw rateLimited('Too many calls to the session list; try again later', result.retryAfterMs);
    },
  };
}
