import session, { type Store } from 'express-session';
import type { RequestHandler } from 'express';

export interface SessionOptions {
  store: Store;
  cookieName: string;
  /** First signs, all verify (rotation). */
  secrets: readonly string[];
  cookieSecure: boolean;
}

/**
 * express-session with a hardened cookie. The cookie is a browser-session cookie (no Expires): idle and
 * absolute timeouts are enforced server-side (store TTL and `requireSession`), so the cookie is only set at
 * login and never rewritten on ordinary requests.
 */
export function sessionMiddleware(options: SessionOptions): RequestHandler {
  return session({
    name: options.cookieName,
    secret: [...options.secrets],
    store: options.store,
    resave: false,
    saveUninitialized: false,
    rolling: false,
    // 'keep': with 'destroy', express-session deletes the stored session whenever loading it failed
    // (req.session stays unset), so one Redis hiccup would log the user out.
    unset: 'keep',
    proxy: undefined, // follows Express's trust proxy setting
    cookie: {
      httpOnly: true,
      secure: options.cookieSecure,
      sameSite: 'strict',
      path: '/',
    },
  });
}

/** Attributes for clearing the cookie: must match the ones it was set with, or browsers keep it. */
export function cookieClearOptions(options: Pick<SessionOptions, 'cookieSecure'>) {
  return { httpOnly: true, secure: options.cookieSecure, sameSite: 'strict' as const, path: '/' };
}
