import { RedisStore } from 'connect-redis';
import express, { type Express } from 'express';
import session, { type SessionData } from 'express-session';
import type { Redis } from 'ioredis';
import { sessionKey } from './redis-prefix.js';

/**
 * How 0.1.x kept sessions, run for real: express-session 1.x (the cookie) over connect-redis 8 (the
 * record), both dev dependencies, configured as 0.1.x configured them. Tests compare the service's own
 * session layer and store with what these libraries read and write, so an upgrade or a downgrade keeps
 * every session.
 */
declare module 'express-session' {
  interface SessionData {
    tg?: unknown;
    graph?: string;
  }
}

/** Bytes express-session and connect-redis 8.1 wrote in a 0.1.x deployment, captured once (name tgbff, secret "first-secret", ttl 1800). */
export const RECORDED = {
  secret: 'first-secret',
  sid: 'a5ytFGrS3pc40UAKfwfUz4dNQDL7fYzW',
  setCookie:
    'tgbff=s%3Aa5ytFGrS3pc40UAKfwfUz4dNQDL7fYzW.qVXTwLC%2F2WSAzeLqIHi0e39JltVBGSxnHSzixsmLq5E; Path=/; HttpOnly; SameSite=Strict',
  record:
    '{"cookie":{"originalMaxAge":null,"expires":null,"secure":false,"httpOnly":true,"path":"/","sameSite":"strict"},' +
    '"tg":{"secret":"v2.k1.sealed","graph":"social","createdAt":1700000000000}}',
  ttlSeconds: 1800,
} as const;

/**
 * connect-redis 8 as 0.1.x ran it: prefix '' over a client that turns a session id into
 * `<prefix>sess:{<sid>}` (connect-redis can only prepend, the Cluster hash tag needs the braces around the
 * id), one DEL per key, and `ttl` for records whose cookie has no expiry.
 */
export function connectRedisStore(redis: Redis, prefix: string, ttlSeconds: number): RedisStore {
  const key = (sid: string): string => sessionKey(prefix, sid);
  const client = {
    get: (sid: string) => redis.get(key(sid)),
    set: (sid: string, value: string, ex?: 'EX', ttl?: number) =>
      ex === 'EX' && ttl !== undefined ? redis.set(key(sid), value, 'EX', ttl) : redis.set(key(sid), value),
    expire: (sid: string, ttl: number) => redis.expire(key(sid), ttl),
    del: async (sids: string | string[]) => {
      let n = 0;
      for (const sid of [sids].flat()) n += await redis.del(key(sid));
      return n;
    },
    mget: (sids: string[]) => Promise.all(sids.map((sid) => redis.get(key(sid)))),
  };
  return new RedisStore({ client, prefix: '', ttl: ttlSeconds });
}

/**
 * 0.1.x's session middleware (src/http/session.ts before the service had its own session layer) on an
 * Express app: `POST /login` regenerates the session and stores `tg` (the body's `tg`) and `graph`,
 * `GET /read` answers the session id and graph it loaded (null when none), `POST /logout` destroys it.
 */
export function expressSessionApp(store: RedisStore, secrets: string[], cookieName = 'tgbff'): Express {
  const app = express();
  app.use(express.json());
  app.use(
    session({
      name: cookieName,
      secret: secrets,
      store,
      resave: false,
      saveUninitialized: false,
      rolling: false,
      unset: 'keep',
      cookie: { httpOnly: true, secure: false, sameSite: 'strict', path: '/' },
    }),
  );
  app.post('/login', (req, res, next) => {
    req.session.regenerate((err) => {
      if (err) return next(err);
      const body = req.body as { tg?: unknown; graph?: string };
      if (body.tg !== undefined) req.session.tg = body.tg;
      if (body.graph !== undefined) req.session.graph = body.graph;
      req.session.save((saveErr) => (saveErr ? next(saveErr) : res.json({ sid: req.sessionID })));
    });
  });
  app.get('/read', (req, res) => {
    const loaded = (req.session as Partial<SessionData>).tg !== undefined || req.session.graph !== undefined;
    res.json(
      loaded
        ? { sid: req.sessionID, graph: req.session.graph ?? null, tg: req.session.tg ?? null }
        : { sid: null, graph: null, tg: null },
    );
  });
  app.post('/logout', (req, res, next) => req.session.destroy((err) => (err ? next(err) : res.status(204).end())));
  return app;
}
