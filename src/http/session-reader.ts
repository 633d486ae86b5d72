import type { RequestHandler } from 'express';
import type { SessionData } from 'express-session';
import type { SessionOptions } from './session.js';
import { cookieValue, unsignSessionId } from './signed-cookie.js';

const ignore = (): void => undefined;

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
  return (req, res, next) => {
    const sid = unsignSessionId(cookieValue(req.headers.cookie, cookieName), secrets);
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
