import { parseYaml } from '../config/yaml.js';
import { z } from 'zod';

/** One limit set: a rate (requests per window, plus a burst) and a concurrency cap; 0 switches a part off. */
export interface QuotaLimits {
  /** Requests one principal may start per `windowSec`, across all instances; 0 = no rate limit. */
  readonly rate: number;
  readonly windowSec: number;
  /** Extra requests per `burstWindowSec` once the rate is spent; 0 = none. */
  readonly burst: number;
  readonly burstWindowSec: number;
  /** Requests one principal may have in flight across all instances; 0 = no cap. */
  readonly concurrency: number;
}

/**
 * A per-graph or per-query override from QUOTA_POLICY_FILE. Its rate replaces the default rate for the
 * requests it matches (a bucket of its own per principal); its concurrency caps them on top of the
 * principal's overall QUOTA_CONCURRENCY.
 */
export interface QuotaRule extends QuotaLimits {
  /** Names the rule in metrics and Redis keys (never a user). */
  readonly name: string;
  readonly graph?: string;
  /** An installed query (`/query/<graph>/<query>`); needs `graph`. */
  readonly query?: string;
}

export interface QuotaPolicy {
  readonly defaults: QuotaLimits;
  /** Query rules first, then graph rules, each in file order: the first match wins. */
  readonly rules: readonly QuotaRule[];
  /** Concurrency leases expire this long after they were taken or last renewed (a killed instance's too). */
  readonly leaseMs: number;
}

const NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;
// TigerGraph identifiers: letters, digits, underscore.
const IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const count = z.number().int().min(0).max(1_000_000);
const seconds = z.number().int().min(1).max(86_400);

const ruleSchema = z
  .object({
    name: z.string().regex(NAME, 'must be 1-40 characters of a-z, 0-9, _ and -, starting with a letter or digit'),
    graph: z.string().regex(IDENT, 'must be a TigerGraph graph name').optional(),
    query: z.string().regex(IDENT, 'must be a TigerGraph query name').optional(),
    rate: count.optional(),
    window: seconds.optional(),
    burst: count.optional(),
    burstWindow: seconds.optional(),
    concurrency: count.optional(),
  })
  .strict()
  .refine((r) => r.graph !== undefined, { message: 'needs graph (and optionally query)' });

const sizing = z.number().int().min(1).max(16_777_216);

/** A `queries:` entry: how the relay treats one installed query (sizing caps, coalescing), not its quota. */
const querySchema = z
  .object({
    graph: z.string().regex(IDENT, 'must be a TigerGraph graph name'),
    query: z.string().regex(IDENT, 'must be a TigerGraph query name'),
    threadLimit: sizing.max(65_535).optional(),
    threadLimitDefault: sizing.max(65_535).optional(),
    memoryLimitMb: sizing.optional(),
    memoryLimitDefaultMb: sizing.optional(),
    readOnly: z.boolean().optional(),
  })
  .strict()
  .refine((q) => q.threadLimitDefault === undefined || q.threadLimit !== undefined, {
    message: 'threadLimitDefault needs threadLimit',
  })
  .refine((q) => q.threadLimitDefault === undefined || q.threadLimitDefault <= q.threadLimit!, {
    message: 'threadLimitDefault must be at most threadLimit',
  })
  .refine((q) => q.memoryLimitDefaultMb === undefined || q.memoryLimitMb !== undefined, {
    message: 'memoryLimitDefaultMb needs memoryLimitMb',
  })
  .refine((q) => q.memoryLimitDefaultMb === undefined || q.memoryLimitDefaultMb <= q.memoryLimitMb!, {
    message: 'memoryLimitDefaultMb must be at most memoryLimitMb',
  });

const fileSchema = z
  .object({ rules: z.array(ruleSchema).max(200).default([]), queries: z.array(querySchema).max(500).default([]) })
  .strict();

/**
 * One installed query's own treatment by the relay (QUOTA_POLICY_FILE `queries:`): its GSQL-THREAD-LIMIT and
 * GSQL-QueryLocalMemLimitMB caps and defaults replace QUERY_THREAD_LIMIT_* / QUERY_MEMORY_LIMIT_* for it (an
 * unset one keeps the setting's), and `readOnly` lets its POSTs share one TigerGraph call (RELAY_COALESCE).
 * Apart from `rules:` so that naming a query here never gives it a rate bucket of its own.
 */
export interface QueryPolicy {
  readonly graph: string;
  readonly query: string;
  readonly threads?: { readonly max: number; readonly default: number };
  readonly memoryMb?: { readonly max: number; readonly default: number };
  readonly readOnly: boolean;
}

/** Thrown with a message that completes "QUOTA_POLICY_FILE: …" (no file content in it beyond a rule's name). */
export class PolicyError extends Error {}

/**
 * QUOTA_POLICY_FILE's text, checked once at start-up: YAML (JSON is YAML too), `{rules: [...]}`. A rule's
 * unset rate fields take the defaults' values (its concurrency none). The first problem is named with its
 * path in the file.
 */
function parseFile(text: string): z.infer<typeof fileSchema> {
  let raw: unknown;
  try {
    raw = parseYaml(text, { maxAliasCount: 0 });
  } catch {
    throw new PolicyError('is not valid YAML or JSON');
  }
  const parsed = fileSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new PolicyError(`${issue.path.join('.') || 'file'}: ${issue.message}`);
  }
  return parsed.data;
}

export function parsePolicy(text: string, defaults: QuotaLimits): QuotaRule[] {
  const names = new Set<string>();
  const rules: QuotaRule[] = [];
  for (const r of parseFile(text).rules) {
    if (names.has(r.name) || r.name === 'default') throw new PolicyError(`rule name ${r.name} is used twice`);
    names.add(r.name);
    rules.push({
      name: r.name,
      ...(r.graph !== undefined && { graph: r.graph }),
      ...(r.query !== undefined && { query: r.query }),
      rate: r.rate ?? defaults.rate,
      windowSec: r.window ?? defaults.windowSec,
      burst: r.burst ?? defaults.burst,
      burstWindowSec: r.burstWindow ?? defaults.burstWindowSec,
      concurrency: r.concurrency ?? 0,
    });
  }
  // Most specific first, so a query rule wins over its graph's rule whatever the file order.
  return [...rules.filter((r) => r.query !== undefined), ...rules.filter((r) => r.query === undefined)];
}

/** Whether any part of the policy limits anything (else the /api lane skips the quota entirely). */
export function policyLimits(policy: QuotaPolicy): boolean {
  const on = (l: QuotaLimits) => l.rate > 0 || l.concurrency > 0;
  return on(policy.defaults) || policy.rules.some(on);
}

/** The file's `queries:` entries, checked once at start-up; a query named twice is refused. */
export function parseQueryPolicies(text: string): QueryPolicy[] {
  const seen = new Set<string>();
  return parseFile(text).queries.map((q) => {
    const key = `${q.graph}/${q.query}`;
    if (seen.has(key)) throw new PolicyError(`queries: ${key} is named twice`);
    seen.add(key);
    return {
      graph: q.graph,
      query: q.query,
      ...(q.threadLimit !== undefined && {
        threads: { max: q.threadLimit, default: q.threadLimitDefault ?? q.threadLimit },
      }),
      ...(q.memoryLimitMb !== undefined && {
        memoryMb: { max: q.memoryLimitMb, default: q.memoryLimitDefaultMb ?? q.memoryLimitMb },
      }),
      readOnly: q.readOnly === true,
    };
  });
}
