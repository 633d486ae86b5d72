import { ExpiringMap } from '../../cache/expiring-map.js';
import type { CredentialSessions } from '../types.js';

/** The Redis store's rules in one process: per credential, session ids by login time, expiring together. */
export function createMemoryCredentialSessions(): CredentialSessions & { close(): void } {
  const byCredential = new ExpiringMap<Map<string, number>>();
  return {
    async add(credential, sid, at, limits) {
      const sessions = byCredential.get(credential) ?? new Map<string, number>();
      sessions.set(sid, at);
      byCredential.set(credential, sessions, limits.ttlMs);
      if (sessions.size <= limits.cap) return [];
      const all = [...sessions].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1)).map(([id]) => id);
      const ceiling = Math.max(limits.cap, limits.ceiling);
      for (const id of all.slice(0, Math.max(0, all.length - ceiling))) sessions.delete(id);
      return all;
    },
    async remove(credential, sids) {
      const sessions = byCredential.get(credential);
      for (const sid of sids) sessions?.delete(sid);
    },
    close: () => byCredential.close(),
  };
}
