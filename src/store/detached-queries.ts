/**
 * Detached (GSQL-ASYNC) queries by who started them (src/relay/detached-queries.ts): the request ids TigerGraph
 * handed back to one principal, each until an expiry. What the relay asks before it lets a caller read the
 * status or result of an id, or abort it: TigerGraph itself answers anyone with a token for the graph.
 *
 * Bounded: at most `cap` live ids per principal are admitted (`room`), and whatever concurrent starts add
 * beyond that, never more than `cap + CEILING_SLACK` are kept (the oldest go first). Every id expires.
 */
export interface DetachedQueryStore {
  /** How many live ids `principal` has on record at `now` (epoch ms); expired ones are dropped first. */
  count(principal: string, now: number): Promise<number>;
  /** Records `id` as `principal`'s until `now + ttlMs`; keeps at most `ceiling` ids (the oldest go first). */
  record(principal: string, id: string, now: number, limits: { ttlMs: number; ceiling: number }): Promise<void>;
  /** Of `ids`, those on record for `principal` at `now`. */
  owned(principal: string, ids: readonly string[], now: number): Promise<Set<string>>;
  /** Every live id of `principal`, oldest first. */
  list(principal: string, now: number): Promise<string[]>;
}

/** What concurrent starts may add beyond the cap before the oldest ids are dropped. */
export const CEILING_SLACK = 64;
