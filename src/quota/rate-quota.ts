import {
  BurstyRateLimiter,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type IRateLimiterOptions,
} from 'rate-limiter-flexible';
import type { RedisClient } from '../store/redis/client.js';
import type { QuotaLimits } from './quota-policy.js';

/** The answer of one rate check: allowed, or refused with how long until a request would pass. */
export type RateVerdict = { allowed: true } | { allowed: false; retryAfterMs: number };

export interface RateQuota {
  consume(principal: string): Promise<RateVerdict>;
}

export interface RateQuotaOptions {
  limits: QuotaLimits;
  /** Absent: counted in this process only (memory store mode). */
  redis?: RedisClient;
  /** Redis key prefix, rule included, e.g. `tgbff:quota:default`; the principal is appended after ':'. */
  keyPrefix: string;
  /** Called each time Redis failed and this instance's own count decided instead. */
  onStoreFailure(): void;
}

/**
 * A rate quota over rate-limiter-flexible: a fixed window of `rate` requests per `windowSec`, and when that
 * is spent a burst of `burst` more per `burstWindowSec` (its BurstyRateLimiter). Counted in Redis, so every
 * instance spends from one count per principal (one Lua call per request, one single-key script, so any
 * Cluster slot). A principal over its quota is then remembered in memory until its window ends
 * (`inMemoryBlockOnConsumed`), so a flood costs Redis nothing more on the instances that refused it.
 *
 * When Redis fails (down, hung past REDIS_COMMAND_TIMEOUT_MS, not connected) the library's insurance limiter
 * decides: the same quota counted in this instance's memory. So the direction is open, per instance: a
 * principal keeps its quota on each instance it reaches, at most N times it over N instances, and nobody
 * is refused because Redis is away (the session read refuses with 503 anyway while it is).
 */
export function createRateQuota(opts: RateQuotaOptions): RateQuota {
  const { limits } = opts;
  const limiter = (points: number, duration: number, prefix: string) => {
    const base: IRateLimiterOptions = { points, duration, keyPrefix: prefix };
    if (opts.redis === undefined) return new RateLimiterMemory(base);
    const insurance = new InsuranceMemory(base, opts.onStoreFailure);
    return new RateLimiterRedis({
      ...base,
      storeClient: opts.redis,
      rejectIfRedisNotReady: true,
      inMemoryBlockOnConsumed: points,
      insuranceLimiter: insurance,
    });
  };
  const rate = limiter(limits.rate, limits.windowSec, opts.keyPrefix);
  const consumer =
    limits.burst > 0
      ? new BurstyRateLimiter(rate, limiter(limits.burst, limits.burstWindowSec, `${opts.keyPrefix}:burst`))
      : rate;
  return {
    async consume(principal) {
      try {
        await consumer.consume(principal);
        return { allowed: true };
      } catch (err) {
        if (err instanceof RateLimiterRes) return { allowed: false, retryAfterMs: Math.max(1, err.msBeforeNext) };
        throw err;
      }
    },
  };
}

/** The insurance limiter, counting each time it is asked (each is a Redis failure). */
class InsuranceMemory extends RateLimiterMemory {
  constructor(
    opts: IRateLimiterOptions,
    private readonly onUse: () => void,
  ) {
    super(opts);
  }

  override consume(key: string | number, points?: number, options?: { [key: string]: unknown }) {
    this.onUse();
    return super.consume(key, points, options);
  }
}
