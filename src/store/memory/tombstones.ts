import { ExpiringMap } from '../../cache/expiring-map.js';
import type { TombstoneStore } from '../types.js';

export function createMemoryTombstones(): TombstoneStore & { close(): void } {
  const dead = new ExpiringMap<true>();
  return {
    async mark(sid, ttlMs) {
      dead.set(sid, true, ttlMs);
    },
    async isDead(sid) {
      return dead.get(sid) === true;
    },
    close: () => dead.close(),
  };
}
