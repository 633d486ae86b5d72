import { AppError } from '../../errors.js';

/**
 * At most `max` relayed requests in flight per session on this instance, so one session cannot take
 * the whole upstream pool from everyone else. Counted in memory: a Redis round trip per request would
 * cost more than the relay itself, and a load balancer spreads one browser's requests over few instances.
 */
export interface SessionConcurrency {
  /** Counts the request in, or throws 429 too_many_requests; `leave` must follow exactly once. */
  enter(sid: string): void;
  leave(sid: string): void;
  /** Sessions with requests in flight (for tests and metrics). */
  readonly size: number;
}

export function sessionConcurrency(max: number): SessionConcurrency {
  const inFlight = new Map<string, number>();
  return {
    enter(sid) {
      const n = inFlight.get(sid) ?? 0;
      if (n >= max) {
        throw new AppError('too_many_requests', `More than ${max} requests of this session are in flight`, {
          headers: { 'Retry-After': '1' },
        });
      }
      inFlight.set(sid, n + 1);
    },
    leave(sid) {
      const n = inFlight.get(sid) ?? 0;
      if (n <= 1) inFlight.delete(sid);
      else inFlight.set(sid, n - 1);
    },
    get size() {
      return inFlight.size;
    },
  };
}
