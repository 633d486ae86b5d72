import type { DetachedQueryStore } from '../detached-queries.js';

/** The embedded (single-instance) record: the same semantics as Redis, no timers (expired ids go on use). */
export function createMemoryDetachedQueries(): DetachedQueryStore & { close(): void } {
  const byPrincipal = new Map<string, Map<string, number>>();
  const live = (principal: string, now: number): Map<string, number> | undefined => {
    const ids = byPrincipal.get(principal);
    if (ids === undefined) return undefined;
    for (const [id, until] of ids) if (until <= now) ids.delete(id);
    if (ids.size === 0) byPrincipal.delete(principal);
    return ids.size === 0 ? undefined : ids;
  };
  const oldestFirst = (ids: Map<string, number>): string[] => [...ids].sort((a, b) => a[1] - b[1]).map(([id]) => id);
  return {
    async count(principal, now) {
      return live(principal, now)?.size ?? 0;
    },
    async record(principal, id, now, limits) {
      const ids = live(principal, now) ?? new Map<string, number>();
      ids.set(id, now + limits.ttlMs);
      byPrincipal.set(principal, ids);
      const over = ids.size - limits.ceiling;
      if (over > 0) for (const old of oldestFirst(ids).slice(0, over)) ids.delete(old);
    },
    async owned(principal, ids, now) {
      const mine = live(principal, now);
      return new Set(mine === undefined ? [] : ids.filter((id) => mine.has(id)));
    },
    async list(principal, now) {
      const mine = live(principal, now);
      return mine === undefined ? [] : oldestFirst(mine);
    },
    close() {
      byPrincipal.clear();
    },
  };
}
