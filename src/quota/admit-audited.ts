import { AppError } from '../errors.js';
import type { Audit } from '../observability/audit.js';
import type { UserQuota } from './user-quota.js';

/**
 * `quota.admit`, with a refusal (429) written to the audit trail as `limiter.tripped` (scope `rate` or
 * `concurrency`): the /api lane and agents' tool calls (src/mcp/) refuse alike.
 */
export function admitAudited(quota: UserQuota, audit: Audit | undefined, principal: string, url: string) {
  return quota.admit(principal, url).catch((err: unknown) => {
    if (err instanceof AppError && err.status === 429)
      audit?.emit({
        event: 'limiter.tripped',
        limit: 'quota',
        scope: err.code === 'quota_exceeded' ? 'rate' : 'concurrency',
      });
    throw err;
  });
}
