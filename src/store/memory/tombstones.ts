import { ExpiringMap } from '../../cache/expiring-map.js';
import type { TombstoneStore } from '../types.js';

export function createMemoryTombstones(): TombstoneStore & { close(): void } {
  const dead = new ExpiringMap<string>();
  return {
    async mark(sid, ttlMs, why = '1') {
      dead.set(sid, why, ttlMs);
    },
    async isDead(sid) {
      return dead.get(sid) !== undefined;
    },
    async endedAs(sid) {
      return dead.get(sid) ?? null;
    },
    close: () => dead.close(),
  };
}
