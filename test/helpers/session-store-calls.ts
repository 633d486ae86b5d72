import type { SessionData, Store } from 'express-session';

/** express-session stores speak callbacks; these make the calls awaitable in tests. */
export const sessionCalls = (store: Store) => ({
  get: (sid: string) =>
    new Promise<SessionData | null | undefined>((resolve, reject) =>
      store.get(sid, (err, session) => (err ? reject(err) : resolve(session))),
    ),
  set: (sid: string, session: SessionData) =>
    new Promise<void>((resolve, reject) => store.set(sid, session, (err) => (err ? reject(err) : resolve()))),
  // The typings say touch's callback takes no error; connect-redis passes one, so listen for it anyway.
  touch: (sid: string, session: SessionData) =>
    new Promise<void>((resolve, reject) => {
      const touch = store.touch as (sid: string, session: SessionData, cb: (err?: unknown) => void) => void;
      touch.call(store, sid, session, (err) => (err ? reject(err) : resolve()));
    }),
  destroy: (sid: string) =>
    new Promise<void>((resolve, reject) => store.destroy(sid, (err) => (err ? reject(err) : resolve()))),
});

/** A session as express-session hands it to a store: cookie with an absolute expiry, plus app fields. */
export function sessionExpiringIn(ms: number, fields: Record<string, unknown> = {}): SessionData {
  const cookie = { originalMaxAge: ms, expires: new Date(Date.now() + ms), httpOnly: true, path: '/', secure: false };
  return { cookie, ...fields } as unknown as SessionData;
}
