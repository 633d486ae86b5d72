import { ExpiringMap } from '../../cache/expiring-map.js';
import type { CredentialSessionEntry, CredentialSessions } from '../types.js';

/** The Redis store's rules in one process: per credential, session ids by login time with their text, expiring together. */
export function createMemoryCredentialSessions(): CredentialSessions & { close(): void } {
  const byCredential = new ExpiringMap<Map<string, { at: number; info: string | null }>>();
  const entries = (credential: string): CredentialSessionEntry[] =>
    [...(byCredential.get(credential) ?? new Map<string, { at: number; info: string | null }>())]
      .sort((a, b) => a[1].at - b[1].at || (a[0] < b[0] ? -1 : 1))
      .map(([sid, { at, info }]) => ({ sid, at, info }));
  return {
    async add(credential, sid, at, limits, info) {
      const sessions = byCredential.get(credential) ?? new Map<string, { at: number; info: string | null }>();
      sessions.set(sid, { at, info: info ?? sessions.get(sid)?.info ?? null });
      byCredential.set(credential, sessions, limits.ttlMs);
      if (sessions.size <= limits.cap) return [];
      const all = entries(credential);
      const ceiling = Math.max(limits.cap, limits.ceiling);
      for (const { sid: id } of all.slice(0, Math.max(0, all.length - ceiling))) sessions.delete(id);
      return all;
    },
    async update(credential, sid, info) {
      const entry = byCredential.get(credential)?.get(sid);
      if (entry) entry.info = info;
    },
    async remove(credential, sids) {
      const sessions = byCredential.get(credential);
      for (const sid of sids) sessions?.delete(sid);
    },
    async list(credential) {
      return entries(credential);
    },
    close: () => byCredential.close(),
  };
}
