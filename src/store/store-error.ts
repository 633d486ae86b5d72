import { ClientLeftError } from './redis/failover-wait.js';
import type { SessionCacheMetrics } from './redis/session-cache.js';
import { AppError } from '../errors.js';

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
