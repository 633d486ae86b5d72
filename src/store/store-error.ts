import { ClientLeftError } from './redis/failover-wait.js';
import { AppError } from '../errors.js';

/** What the session cache reports (redis/session-cache.ts; observability/metrics.ts has them as series). */
export interface SessionCacheMetrics {
  /**
   * result = hit | miss (read from Redis, tracked) | shared (joined a read in flight for the same session) |
   * bypass (tracking not established: read as without cache).
   */
  lookups: { inc(labels: { result: 'hit' | 'miss' | 'shared' | 'bypass' }): void };
  /** kind = key (Redis said a key changed) | flush (everything dropped: connection lost, null invalidation). */
  invalidations: { inc(labels: { kind: 'key' | 'flush' }): void };
  size: { set(value: number): void };
}

/** The part of the service metrics the stores touch; optional so library callers can skip metrics. */
export interface StoreMetrics {
  redisErrors: { inc(): void };
  /** The session cache's hits, misses, invalidations and size (session-cache.ts). */
  sessionCache?: SessionCacheMetrics;
}

export const storeUnavailable = (cause: unknown): AppError =>
  new AppError('store_unavailable', 'Session store unavailable', {
    cause,
    headers: { 'Retry-After': '1' },
    dependency: 'redis',
  });

export type Guard = <T>(op: () => Promise<T>) => Promise<T>;

/**
 * Wraps a Redis round trip so any failure (refused, timed out, script error) reaches the HTTP layer as
 * one 503 it knows how to answer, and is counted once.
 */
export function createGuard(metrics?: StoreMetrics): Guard {
  return async (op) => {
    try {
      return await op();
    } catch (err) {
      // A command dropped because its client left never reached Redis: not a Redis error.
      if (!(err instanceof ClientLeftError)) metrics?.redisErrors.inc();
      throw storeUnavailable(err);
    }
  };
}
