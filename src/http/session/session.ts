import type { StoredSession, TgSession } from '../../sessions/session-data.js';

export interface CookieSettings {
  cookieName: string;
  cookieSecure: boolean;
}

/**
 * The session cookie is a browser-session cookie (no Expires): idle and absolute timeouts are enforced
 * server-side (store TTL and the session gate), so it is only set at login and never rewritten.
 */
export function sessionCookie(settings: CookieSettings, signedValue: string): string {
  // What express-session (through the cookie package) wrote: same attributes, same order, same encoding.
  return `${settings.cookieName}=${encodeURIComponent(signedValue)}; Path=/; HttpOnly${settings.cookieSecure ? '; Secure' : ''}; SameSite=Strict`;
}

/** Attributes for clearing the cookie: must match the ones it was set with, or browsers keep it. */
export function cookieClearOptions(options: Pick<CookieSettings, 'cookieSecure'>) {
  return { httpOnly: true, secure: options.cookieSecure, sameSite: 'strict' as const, path: '/' };
}

/**
 * The stored record, in express-session's JSON shape (a `cookie` with no expiry, so the store's TTL is
 * the idle timeout), so sessions written before and after the move off express-session read alike.
 */
export function storedSession(tg: TgSession, cookieSecure: boolean): StoredSession {
  const cookie = {
    originalMaxAge: null,
    expires: null,
    secure: cookieSecure,
    httpOnly: true,
    path: '/',
    sameSite: 'strict' as const,
  };
  return { cookie, tg };
}
