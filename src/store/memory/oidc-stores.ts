import { ExpiringMap } from '../../cache/expiring-map.js';
import type { OidcStores } from '../oidc-stores.js';

export function createMemoryOidcStores(): OidcStores & { close(): void } {
  const idx = new ExpiringMap<Set<string>>();
  const used = new ExpiringMap<true>();
  return {
    sessionIndex: {
      async add(keys, sid, ttlMs) {
        // As Redis's PEXPIRE GT: a key lives as long as its longest-lived session, never shorter.
        for (const key of keys) {
          const longest = Math.max(ttlMs, (idx.expiresAt(key) ?? 0) - Date.now());
          idx.set(key, new Set([...(idx.get(key) ?? []), sid]), longest);
        }
      },
      async members(key) {
        return [...(idx.get(key) ?? [])];
      },
      async remove(keys, sid) {
        for (const key of keys) idx.get(key)?.delete(sid);
      },
    },
    async firstUse(key, ttlMs) {
      if (used.get(key)) return false;
      used.set(key, true, ttlMs);
      return true;
    },
    async used(key) {
      return used.get(key) === true;
    },
    close() {
      idx.close();
      used.close();
    },
  };
}
