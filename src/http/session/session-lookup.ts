import type { SessionData, Store } from 'express-session';
import { ShortCache } from '../../store/short-cache.js';
import { cookieValue, unsignSessionId } from './signed-cookie.js';

const ignore = (): void => undefined;

/** How long a cookie whose signature checked out is remembered (an HMAC per request showed in the profile). */
const VERIFIED_MS = 10_000;

/**
 * express-session's session, read-only, for the /api lane: the same cookie, signature check, store and
 * sliding idle timeout, without what a read-only request never needs and the relay's profile showed
 * (hashing the session twice per request to detect changes, wrapping the response to rewrite a cookie
 * that never changes here, and Express's request plumbing).
 */
export interface SessionLookup {
  /** The session id of a verified cookie in this Cookie header, or null (none, unsigned or forged). */
  sid(cookieHeader: string | undefined): string | null;
  /** The stored session, or null when there is none (expired or destroyed). A store failure rejects. */
  load(sid: string): Promise<SessionData | null>;
  /** Slides the idle TTL, as express-session does for an unchanged session once the answer is out. */
  touch(sid: string, data: SessionData): void;
  destroy(sid: string): Promise<void>;
}

export function sessionLookup(options: { store: Store; cookieName: string; secrets: readonly string[] }): SessionLookup {
  const { store, cookieName } = options;
  const secrets = [...options.secrets];
  // Keyed by the whole signed value, so only the very bytes that verified are let through unchecked.
  const verified = new ShortCache<string>(VERIFIED_MS, 10_000);
  return {
    sid(cookieHeader) {
      const value = cookieValue(cookieHeader, cookieName);
      if (value === undefined) return null;
      const known = verified.get(value);
      if (known !== undefined) return known;
      const sid = unsignSessionId(value, secrets);
      if (sid !== null) verified.set(value, sid);
      return sid;
    },
    load(sid) {
      return new Promise((resolve, reject) => {
        store.get(sid, (err: unknown, data?: SessionData | null) => (err ? reject(err) : resolve(data ?? null)));
      });
    },
    touch(sid, data) {
      store.touch?.(sid, data, ignore);
    },
    destroy(sid) {
      return new Promise((resolve) => store.destroy(sid, () => resolve()));
    },
  };
}
