import { AppError } from '../../errors.js';
import type { Metrics } from '../../observability/metrics.js';
import type { Audit } from '../../observability/audit.js';

/** What a limit counts by: one session, or every session of one credential (secret, user, IdP subject). */
export type ConcurrencyScope = 'session' | 'credential';

/**
 * At most `max` relayed requests in flight per key on this instance, so one session (or one credential,
 * however many sessions it opens) cannot take the whole upstream pool from everyone else. Counted in
 * memory: a Redis round trip per request would cost more than the relay itself, and a load balancer
 * spreads one browser's requests over few instances.
 */
export interface SessionConcurrency {
  /** Counts the request in, or throws 429 too_many_requests; `leave` must follow exactly once. */
  enter(key: string): void;
  leave(key: string): void;
  /** Keys with requests in flight (for tests and metrics). */
  readonly size: number;
}

export function sessionConcurrency(
  max: number,
  scope: ConcurrencyScope = 'session',
  metrics?: Metrics,
  audit?: Audit,
): SessionConcurrency {
  const inFlight = new Map<string, number>();
  const message = `More than ${max} requests of this ${scope === 'session' ? 'session' : "session's credential"} are in flight`;
  return {
    enter(key) {
      const n = inFlight.get(key) ?? 0;
      if (n >= max) {
        metrics?.relayLimited.inc({ scope });
        audit?.emit({ event: 'limiter.tripped', limit: 'relay_concurrency', scope });
        throw new AppError('too_many_requests', message, { headers: { 'Retry-After': '1' } });
      }
      inFlight.set(key, n + 1);
    },
    leave(key) {
      const n = inFlight.get(key) ?? 0;
      if (n <= 1) inFlight.delete(key);
      else inFlight.set(key, n - 1);
    },
    get size() {
      return inFlight.size;
    },
  };
}
