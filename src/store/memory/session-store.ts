import { ExpiringMap } from '../../cache/expiring-map.js';
import { recordReader, sessionTtlSeconds, type SessionRecord, type SessionStore } from '../session-store.js';

/**
 * Sessions for the embedded single-instance mode, with the Redis store's TTL rules. Records are kept
 * as JSON and handed out frozen, so callers cannot mutate a stored session by reference, as with Redis.
 */
export class MemorySessionStore implements SessionStore {
  private readonly sessions = new ExpiringMap<string>();
  private readonly read = recordReader();

  constructor(private readonly fallbackTtlSeconds = 86_400) {}

  async get(sid: string): Promise<SessionRecord | null> {
    return this.read(sid, this.sessions.get(sid) ?? null);
  }

  async set(sid: string, record: SessionRecord): Promise<void> {
    const ttlMs = this.ttlMs(record);
    if (ttlMs > 0) this.sessions.set(sid, JSON.stringify(record), ttlMs);
    else this.sessions.delete(sid);
  }

  async touch(sid: string, record: SessionRecord): Promise<void> {
    const raw = this.sessions.get(sid);
    if (raw !== undefined) this.sessions.set(sid, raw, this.ttlMs(record));
  }

  async destroy(sid: string): Promise<void> {
    this.sessions.delete(sid);
  }

  /** Time the session has left, or null when there is none (for the session-end sweeper). */
  remainingMs(sid: string): number | null {
    const at = this.sessions.expiresAt(sid);
    return at === undefined ? null : Math.max(0, at - Date.now());
  }

  close(): void {
    this.sessions.close();
  }

  private ttlMs(record: SessionRecord): number {
    return sessionTtlSeconds(record, this.fallbackTtlSeconds) * 1000;
  }
}
