import { AppError } from '../errors.js';
import type { Logger } from '../observability/logger.js';
import type { RedisClient } from '../store/redis/client.js';
import { redisKeys } from '../store/keys.js';
import {
  createMemoryLeases,
  createRedisLeases,
  type ConcurrencyLeases,
  type LeaseCounter,
} from './concurrency-leases.js';
import type { QuotaMetrics } from './quota-metrics.js';
import type { QuotaLimits, QuotaPolicy, QuotaRule } from './quota-policy.js';
import { createRateQuota, type RateQuota } from './rate-quota.js';
import { quotaTarget } from './request-target.js';

/**
 * Per-principal quotas on relayed requests, shared by every instance: a rate (with a burst) and a cap on
 * requests in flight, per principal, with per-graph and per-query overrides from the policy file.
 */
export interface UserQuota {
  /**
   * Counts one relayed request of `principal` to `url` (as received, mount included) in. Resolves to the
   * function that ends it (call it once, when the answer ended); throws 429 quota_exceeded (rate) or
   * too_many_requests (in flight) with Retry-After.
   */
  admit(principal: string, url: string): Promise<() => void>;
  close(): void;
}

export interface UserQuotaOptions {
  policy: QuotaPolicy;
  /** Absent: counted in this process (memory store mode). */
  redis?: RedisClient;
  /** REDIS_PREFIX. */
  prefix: string;
  /** Where the relay is mounted ('/api'). */
  mount: string;
  instanceId: string;
  metrics: QuotaMetrics;
  logger: Logger;
  now?: () => number;
}

interface Bucket {
  name: string;
  limits: QuotaLimits;
  rate: RateQuota | null;
}

const noop = (): void => undefined;

export function createUserQuota(opts: UserQuotaOptions): UserQuota {
  const { policy, metrics } = opts;
  const keys = redisKeys(opts.prefix);
  let warned = 0;
  const storeFailed = (op: 'rate' | 'acquire' | 'release' | 'renew') => (err?: unknown) => {
    metrics.storeFailures.inc({ op });
    // One line a minute at most: an outage would otherwise log once per request.
    const t = Date.now();
    if (t - warned < 60_000) return;
    warned = t;
    opts.logger.warn(
      { op, code: (err as { code?: unknown } | undefined)?.code },
      'quota store failed; counting on this instance',
    );
  };
  const bucket = (name: string, limits: QuotaLimits): Bucket => ({
    name,
    limits,
    rate:
      limits.rate > 0
        ? createRateQuota({
            limits,
            ...(opts.redis && { redis: opts.redis }),
            keyPrefix: keys.quotaCounters(name),
            onStoreFailure: () => storeFailed('rate')(),
          })
        : null,
  });
  const defaults = bucket('default', policy.defaults);
  const rules = policy.rules.map((r) => ({ rule: r, bucket: bucket(r.name, r) }));
  const fallback = createMemoryLeases();
  const leases: ConcurrencyLeases = opts.redis
    ? createRedisLeases(opts.redis, {
        leaseMs: policy.leaseMs,
        instanceId: opts.instanceId,
        ...(opts.now && { now: opts.now }),
        onStoreFailure: (op, err) => storeFailed(op)(err),
      })
    : fallback;

  const match = (url: string): Bucket => {
    if (rules.length === 0) return defaults;
    const target = quotaTarget(url, opts.mount);
    if (target.graph === undefined) return defaults;
    return rules.find(({ rule }) => matches(rule, target.graph!, target.query))?.bucket ?? defaults;
  };

  const acquire = async (counters: LeaseCounter[]) => {
    if (leases === fallback) return fallback.acquire(counters);
    try {
      return await leases.acquire(counters);
    } catch (err) {
      storeFailed('acquire')(err);
      return fallback.acquire(counters);
    }
  };

  return {
    async admit(principal, url) {
      const b = match(url);
      if (b.rate !== null) {
        const verdict = await b.rate.consume(principal);
        if (!verdict.allowed) {
          metrics.refused.inc({ limit: 'rate', rule: b.name });
          const s = Math.ceil(verdict.retryAfterMs / 1000);
          throw new AppError(
            'quota_exceeded',
            `This user's request quota${b === defaults ? '' : ` for ${b.name}`} is spent (${b.limits.rate} per ${b.limits.windowSec} s${b.limits.burst > 0 ? `, burst ${b.limits.burst} per ${b.limits.burstWindowSec} s` : ''}); try again in ${s} s`,
            { headers: { 'Retry-After': String(s) } },
          );
        }
      }
      // Both counters of a principal share its hash tag, so one script enters both on Cluster.
      const counters: LeaseCounter[] = [];
      const tag = keys.inflight(principal);
      if (policy.defaults.concurrency > 0) counters.push({ key: tag, max: policy.defaults.concurrency });
      if (b !== defaults && b.limits.concurrency > 0)
        counters.push({ key: keys.inflight(principal, b.name), max: b.limits.concurrency });
      if (counters.length === 0) {
        metrics.admitted.inc({ rule: b.name });
        return noop;
      }
      const lease = await acquire(counters);
      if (!lease.admitted) {
        const full = counters[lease.full]!;
        const rule = full.key === tag ? 'default' : b.name;
        metrics.refused.inc({ limit: 'concurrency', rule });
        throw new AppError(
          'too_many_requests',
          `More than ${full.max} requests of this user${rule === 'default' ? '' : ` for ${rule}`} are in flight across all instances`,
          { headers: { 'Retry-After': '1' } },
        );
      }
      metrics.admitted.inc({ rule: b.name });
      return lease.release;
    },
    close() {
      leases.close();
      fallback.close();
    },
  };
}

function matches(rule: QuotaRule, graph: string, query: string | undefined): boolean {
  if (rule.graph !== graph) return false;
  return rule.query === undefined || rule.query === query;
}
