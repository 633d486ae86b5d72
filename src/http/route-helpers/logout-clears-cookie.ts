import type { ErrorRequestHandler } from 'express';
import { cookieClearOptions } from '../session/session.js';

/**
 * A logout that failed (Redis unreachable: 503 store_unavailable) still makes the browser forget the
 * session: someone leaving a shared machine must not stay logged in because the store was down. The
 * stored session is not ended by this; see docs/api.md "Logout while Redis is down".
 */
export function logoutClearsCookie(options: { cookieName: string; cookieSecure: boolean }): ErrorRequestHandler {
  return (err, req, res, next) => {
    // Mounted at /auth/logout: '/' is the logout route itself (with or without a trailing slash).
    if (req.method === 'POST' && req.path === '/' && !res.headersSent)
      res.clearCookie(options.cookieName, cookieClearOptions(options));
    next(err);
  };
}
