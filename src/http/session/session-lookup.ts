import { randomBytes } from 'node:crypto';
import type { SessionReadOptions, SessionStore } from '../../store/session-store.js';
import type { StoreCall } from '../../store/store-call.js';
import { ShortCache } from '../../cache/short-cache.js';
import type { StoredSession } from '../../sessions/session-data.js';
import { cookieValue, signSessionId, unsignSessionId } from './signed-cookie.js';

const ignore = (): void => undefined;

/** A read's options; the call's signal is passed on unread (a getter: read only if a command has to wait). */
const readOptions = (bypassCache: boolean, call: StoreCall | undefined): SessionReadOptions =>
  call === undefined
    ? { bypassCache }
    : {
        bypassCache,
        get signal() {
          return call.signal;
        },
      };

/** How long a cookie whose signature checked out is remembered (an HMAC per request showed in the profile). */
const VERIFIED_MS = 10_000;

/**
 * The one session reader and writer, over the session store (Redis or memory, src/store/session-store.ts):
 * the signed cookie, load, the sliding idle timeout, save and destroy. Both the /api lane and the /auth
 * routes use it, per request through RequestSession.
 */
export interface SessionLookup {
  /** The session id of a verified cookie in this Cookie header, or null (none, unsigned or forged). */
  sid(cookieHeader: string | undefined): string | null;
  /**
   * The stored session, or null when there is none (expired or destroyed). A store failure rejects.
   * `fromCache`: this instance's session cache may answer (the /api lane only; see RequestSession). `call`:
   * the request's (its signal aborts when the client leaves; store/store-call.ts).
   */
  load(sid: string, fromCache?: boolean, call?: StoreCall): Promise<StoredSession | null>;
  /** Slides the idle TTL, once the answer is out (the store thins these out). */
  touch(sid: string, data: StoredSession): void;
  destroy(sid: string): Promise<void>;
  save(sid: string, data: StoredSession): Promise<void>;
  /** A fresh random session id (express-session's size: 24 bytes, base64url). */
  newSid(): string;
  /** The cookie value that carries `sid`. */
  sign(sid: string): string;
}

export function sessionLookup(options: {
  store: SessionStore;
  cookieName: string;
  secrets: readonly string[];
}): SessionLookup {
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
    // The record's `tg` is checked by the gate (absolute timeout, sealed secret) before anything trusts it.
    load: (sid, fromCache, call) =>
      store.get(sid, readOptions(fromCache !== true, call)) as Promise<StoredSession | null>,
    touch(sid, data) {
      store.touch(sid, data).catch(ignore);
    },
    destroy: (sid) => store.destroy(sid),
    save: (sid, data) => store.set(sid, data),
    newSid: () => randomBytes(24).toString('base64url'),
    sign: (sid) => signSessionId(sid, secrets),
  };
}
