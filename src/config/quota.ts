import { Invalid } from './fields.js';
import {
  parsePolicy,
  parseQueryPolicies,
  PolicyError,
  type QueryPolicy,
  type QuotaLimits,
  type QuotaPolicy,
  type QuotaRule,
} from '../quota/quota-policy.js';
import { readFileSync } from 'node:fs';

export type QuotaConfig = QuotaPolicy;

/** The policy file's text, read once at start-up (its rules are checked against the defaults in quotaFrom). */
export function policyFile(path: string): { path: string; text: string } {
  try {
    return { path, text: readFileSync(path, 'utf8') };
  } catch {
    throw new Invalid('cannot read the file');
  }
}

interface QuotaValues {
  QUOTA_RATE: number;
  QUOTA_WINDOW: number;
  QUOTA_BURST: number;
  QUOTA_BURST_WINDOW: number;
  QUOTA_CONCURRENCY: number;
  QUOTA_LEASE_MS: number;
  QUOTA_POLICY_FILE: { path: string; text: string } | undefined;
}

/** Checks the policy file's rules (a bad one stops the start naming QUOTA_POLICY_FILE and the rule). */
export function quotaRules(v: QuotaValues): { rules: QuotaRule[]; issue?: string } {
  if (v.QUOTA_POLICY_FILE === undefined) return { rules: [] };
  try {
    const rules = parsePolicy(v.QUOTA_POLICY_FILE.text, defaultsOf(v));
    parseQueryPolicies(v.QUOTA_POLICY_FILE.text);
    return { rules };
  } catch (err) {
    if (err instanceof PolicyError) return { rules: [], issue: err.message };
    throw err;
  }
}

const defaultsOf = (v: QuotaValues): QuotaLimits => ({
  rate: v.QUOTA_RATE,
  windowSec: v.QUOTA_WINDOW,
  burst: v.QUOTA_BURST,
  burstWindowSec: v.QUOTA_BURST_WINDOW,
  concurrency: v.QUOTA_CONCURRENCY,
});

export function quotaFrom(v: QuotaValues): QuotaConfig {
  return { defaults: defaultsOf(v), rules: quotaRules(v).rules, leaseMs: v.QUOTA_LEASE_MS };
}

/** The policy file's `queries:` entries (sizing overrides, read-only queries); none without a file. */
export function queryPolicies(v: Pick<QuotaValues, 'QUOTA_POLICY_FILE'>): QueryPolicy[] {
  return v.QUOTA_POLICY_FILE === undefined ? [] : parseQueryPolicies(v.QUOTA_POLICY_FILE.text);
}
