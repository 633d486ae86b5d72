import { Store, type SessionData } from 'express-session';
import { ExpiringMap } from './memory-expiring-map.js';

type Callback<T = void> = (err?: unknown, value?: T) => void;

/**
 * express-session store for the embedded single-instance mode, with the same TTL rules as connect-redis:
 * the cookie expiry when there is one, else `fallbackTtlSeconds`; touch slides it. Sessions are kept as
 * JSON so callers cannot mutate a stored session by reference, as with Redis.
 */
export class MemorySessionStore extends Store {
  private readonly sessions = new ExpiringMap<string>();

  constructor(private readonly fallbackTtlSeconds = 86_400) {
    super();
  }

  override get(sid: string, callback: Callback<SessionData | null>): void {
    const raw = this.sessions.get(sid);
    defer(callback, undefined, raw === undefined ? null : (JSON.parse(raw) as SessionData));
  }

  override set(sid: string, session: SessionData, callback?: Callback): void {
    const ttlMs = this.ttlMs(session);
    if (ttlMs > 0) this.sessions.set(sid, JSON.stringify(session), ttlMs);
    else this.sessions.delete(sid);
    defer(callback);
  }

  override touch(sid: string, session: SessionData, callback?: Callback): void {
    const raw = this.sessions.get(sid);
    if (raw !== undefined) {
      const stored = JSON.parse(raw) as SessionData;
      this.set(sid, { ...stored, cookie: session.cookie }, callback);
      return;
    }
    defer(callback);
  }

  override destroy(sid: string, callback?: Callback): void {
    this.sessions.delete(sid);
    defer(callback);
  }

  /** Time the session has left, or null when there is none (for the session-end sweeper). */
  remainingMs(sid: string): number | null {
    const at = this.sessions.expiresAt(sid);
    return at === undefined ? null : Math.max(0, at - Date.now());
  }

  close(): void {
    this.sessions.close();
  }

  private ttlMs(session: SessionData): number {
    const expires = session.cookie?.expires;
    return expires ? new Date(expires).getTime() - Date.now() : this.fallbackTtlSeconds * 1000;
  }
}

/** Callbacks always run asynchronously, as they do with a networked store. */
function defer<T>(callback: Callback<T> | undefined, err?: unknown, value?: T): void {
  if (callback) process.nextTick(callback, err, value);
}
