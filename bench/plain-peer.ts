import { Agent } from 'node:http';
import { RedisStore } from 'connect-redis';
import express from 'express';
import session from 'express-session';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { Redis } from 'ioredis';
import { mintToken } from './simulator-client.js';

/**
 * Subject (c), the plain peer: what a user would otherwise build from the usual parts. express-session on
 * connect-redis, a login that trades the secret for a token and keeps the token in the session, and
 * http-proxy-middleware adding the session's bearer. Given a keep-alive agent, which a careful user would
 * add (without one every request opens a new connection and the comparison would flatter us).
 * Env: PORT, UPSTREAM, REDIS_URL, REDIS_PREFIX, SESSION_SECRET.
 */
declare module 'express-session' {
  interface SessionData {
    token?: string;
  }
}

const upstream = process.env.UPSTREAM ?? 'http://127.0.0.1:9000';
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const app = express();
app.disable('x-powered-by');
app.use(
  session({
    store: new RedisStore({ client: redis, prefix: process.env.REDIS_PREFIX ?? 'peer:' }),
    secret: process.env.SESSION_SECRET ?? 'plain-peer-benchmark-secret',
    resave: false,
    saveUninitialized: false,
    cookie: { httpOnly: true, sameSite: 'strict', maxAge: 30 * 60 * 1000 },
  }),
);

app.post('/login', express.json(), async (req, res) => {
  const secret = (req.body as { secret?: unknown } | undefined)?.secret;
  if (typeof secret !== 'string') return void res.status(400).json({ error: 'secret required' });
  try {
    const token = await mintToken(upstream, secret, 2_592_000);
    await new Promise<void>((resolve, reject) => req.session.regenerate((err) => (err ? reject(err) : resolve())));
    req.session.token = token;
    res.json({ authenticated: true });
  } catch {
    res.status(401).json({ error: 'invalid credentials' });
  }
});

app.use(
  '/api',
  (req, res, next) => (req.session.token ? next() : res.status(401).json({ error: 'not logged in' })),
  createProxyMiddleware<express.Request, express.Response>({
    target: upstream,
    agent: new Agent({ keepAlive: true, maxSockets: 128 }),
    on: {
      proxyReq: (proxyReq, req) => {
        proxyReq.removeHeader('cookie');
        proxyReq.setHeader('authorization', `Bearer ${req.session.token ?? ''}`);
      },
    },
  }),
);

const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  redis.disconnect();
  process.exit(0);
});
