import type { SessionData, Store } from 'express-session';
import { randomBytes } from 'node:crypto';
import { ShortCache } from '../../store/short-cache.js';
import { cookieValue, signSessionId, unsignSessionId } from './signed-cookie.js';

const ignore = (): void => undefined;

/** How long a cookie whose signature checked out is remembered (an HMAC per request showed in the profile). */
const VERIFIED_MS = 10_000;

/**
 * The one session reader and writer, over the session store (Redis or memory, express-session's Store
 * seam): the signed cookie, load, the sliding idle timeout, save and destroy. Both the /api lane and the
 * /auth routes use it, per request through RequestSession.
 */
export interface SessionLookup {
  /** The session id of a verified cookie in this Cookie header, or null (none, unsigned or forged). */
  sid(cookieHeader: string | undefined): string | null;
  /** The stored session, or null when there is none (expired or destroyed). A store failure rejects. */
  load(sid: string): Promise<SessionData | null>;
  /** Slides the idle TTL, once the answer is out (the store thins these out). */
  touch(sid: string, data: SessionData): void;
  destroy(sid: string): Promise<void>;
  save(sid: string, data: SessionData): Promise<void>;
  /** A fresh random session id (express-session's size: 24 bytes, base64url). */
  newSid(): string;
  /** The cookie value that carries `sid`. */
  sign(sid: string): string;
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
      return new Promise((resolve, reject) => store.destroy(sid, (err: unknown) => (err ? reject(err) : resolve())));
    },
    save(sid, data) {
      return new Promise((resolve, reject) => store.set(sid, data, (err: unknown) => (err ? reject(err) : resolve())));
    },
    newSid: () => randomBytes(24).toString('base64url'),
    sign: (sid) => signSessionId(sid, secrets),
  };
}
