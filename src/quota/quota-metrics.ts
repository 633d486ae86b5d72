import { Counter, type Registry } from 'prom-client';

/** Counted by limit and rule (names from the settings and the policy file), never by user. */
export interface QuotaMetrics {
  /** limit = rate | concurrency; rule = default or a policy rule's name. */
  refused: Counter<'limit' | 'rule'>;
  /** Requests admitted, by rule. */
  admitted: Counter<'rule'>;
  /** Redis calls of the quota that failed; op = rate | acquire | release | renew. */
  storeFailures: Counter<'op'>;
}

/**
 * Registered whether or not quotas are on, the label sets the dashboard sums over at zero (a panel over a
 * series that never appeared shows "No data", read as a broken scrape). `rule` starts as `default`; a policy
 * rule's name appears when it first counts.
 */
export function createQuotaMetrics(registry: Registry): QuotaMetrics {
  const registers = [registry];
  const metrics: QuotaMetrics = {
    refused: new Counter({
      name: 'tgbff_quota_refused_total',
      help: 'Relayed requests refused by a per-principal quota, by limit (rate, concurrency) and rule',
      labelNames: ['limit', 'rule'],
      registers,
    }),
    admitted: new Counter({
      name: 'tgbff_quota_admitted_total',
      help: 'Relayed requests a per-principal quota admitted, by rule',
      labelNames: ['rule'],
      registers,
    }),
    storeFailures: new Counter({
      name: 'tgbff_quota_store_failures_total',
      help: "Quota Redis calls that failed; this instance's own count decided instead (rate, acquire)",
      labelNames: ['op'],
      registers,
    }),
  };
  for (const limit of ['rate', 'concurrency']) metrics.refused.inc({ limit, rule: 'default' }, 0);
  metrics.admitted.inc({ rule: 'default' }, 0);
  for (const op of ['rate', 'acquire', 'release', 'renew']) metrics.storeFailures.inc({ op }, 0);
  return metrics;
}
