import type { RequestHandler } from 'express';
import type { SessionData } from 'express-session';
import { ShortCache } from '../store/short-cache.js';
import type { SessionOptions } from './session.js';
import { cookieValue, unsignSessionId } from './signed-cookie.js';

const ignore = (): void => undefined;

/** How long a cookie whose signature checked out is remembered (an HMAC per request showed in the profile). */
const VERIFIED_MS = 10_000;

/**
 * express-session for routes that only read the session (the /api relay): the same cookie, signature
 * check, store, `req.session` object and sliding idle timeout, without what a read-only request never
 * needs and the relay's profile showed: hashing the session twice per request to detect changes, and
 * wrapping the response to rewrite a cookie that never changes here. No cookie or an invalid one
 * leaves `req.session` unset; a store failure goes to the error handler, as with express-session.
 */
export function sessionReader(options: Pick<SessionOptions, 'store' | 'cookieName' | 'secrets'>): RequestHandler {
  const { store, cookieName } = options;
  const secrets = [...options.secrets];
  // Keyed by the whole signed value, so only the very bytes that verified are let through unchecked.
  const verified = new ShortCache<string>(VERIFIED_MS, 10_000);
  const sessionId = (value: string | undefined): string | null => {
    if (value === undefined) return null;
    const known = verified.get(value);
    if (known !== undefined) return known;
    const sid = unsignSessionId(value, secrets);
    if (sid !== null) verified.set(value, sid);
    return sid;
  };
  return (req, res, next) => {
    const sid = sessionId(cookieValue(req.headers.cookie, cookieName));
    if (sid === null) return next();
    // Only destroy() is used behind this reader; express-session's generate() is for new sessions.
    req.sessionStore = store as typeof req.sessionStore;
    store.get(sid, (err: unknown, data?: SessionData | null) => {
      if (err) return next(err);
      if (!data) return next();
      req.sessionID = sid;
      store.createSession(req, data);
      // As express-session does for an unchanged session: slide the idle TTL once the answer is out.
      res.once('finish', () => store.touch?.(sid, data, ignore));
      next();
    });
  };
}
