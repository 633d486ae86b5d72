import type { SessionRecord } from '../../src/store/session-store.js';

/** A record as express-session handed it to a store: a cookie with an absolute expiry, plus app fields. */
export function sessionExpiringIn(ms: number, fields: Record<string, unknown> = {}): SessionRecord {
  const cookie = { originalMaxAge: ms, expires: new Date(Date.now() + ms), httpOnly: true, path: '/', secure: false };
  return { cookie, ...fields };
}
