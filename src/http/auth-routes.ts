import express, { type Request, type Response, Router } from 'express';
import { AppError } from '../errors.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { Cipher, RateLimiter, TokenStore, TombstoneStore } from '../store/types.js';
import type { TokenBroker } from '../tokens/token-broker.js';
import { cookieClearOptions } from './session.js';
import { requireSession, sessionContext, type RequireSessionDeps } from './require-session.js';
import { parseLoginBody } from './login-body.js';
import type { TgSession } from './session-data.js';

export interface AuthRoutesDeps extends RequireSessionDeps {
  broker: TokenBroker;
  tokens: TokenStore;
  tombstones: TombstoneStore;
  rateLimiter: RateLimiter;
  cipher: Cipher;
  logger: Logger;
  metrics: Metrics;
  cookieName: string;
  cookieSecure: boolean;
  idleTimeoutSec: number;
  login: { max: number; windowSec: number };
}

const iso = (epochSec: number) => new Date(epochSec * 1000).toISOString();

function regenerate(req: Request): Promise<void> {
  return new Promise((resolve, reject) => req.session.regenerate((err) => (err ? reject(err) : resolve())));
}
function save(req: Request): Promise<void> {
  return new Promise((resolve, reject) => req.session.save((err) => (err ? reject(err) : resolve())));
}
function destroy(req: Request): Promise<void> {
  return new Promise((resolve, reject) => req.session.destroy((err) => (err ? reject(err) : resolve())));
}

export function authRoutes(deps: AuthRoutesDeps): Router {
  const router = Router();
  const json = express.json({ limit: '16kb', strict: true });
  const tombstoneMs = deps.absoluteTimeoutSec * 1000;

  /** Ends a session everywhere: tombstone first so in-flight requests cannot bring it back. */
  async function endSession(req: Request): Promise<void> {
    const tg = req.session?.tg;
    if (!tg) return;
    const sid = req.sessionID;
    await deps.tombstones.mark(sid, tombstoneMs);
    try {
      await deps.broker.revoke(sid, deps.cipher.decrypt(tg.secret));
    } catch (err) {
      // The session ends regardless; a token left upstream expires on its own.
      deps.logger.warn({ err, code: (err as AppError).code }, 'token delete at logout failed');
      await deps.tokens.delete(sid).catch(() => undefined);
    }
  }

  router.post('/login', json, async (req: Request, res: Response) => {
    if (deps.cookieSecure && !req.secure) {
      // express-session silently drops a Secure cookie on plain http; say why instead of a login that "works".
      throw new AppError(403, 'https_required', 'Login needs https; behind a TLS-terminating proxy set TRUST_PROXY');
    }
    const body = parseLoginBody(req.body);
    const limited = await deps.rateLimiter.hit(`login:ip:${req.ip ?? 'unknown'}`, deps.login.max, deps.login.windowSec * 1000);
    if (!limited.allowed) {
      deps.metrics.logins.inc({ result: 'rate_limited' });
      const retry = String(Math.max(1, Math.ceil(limited.retryAfterMs / 1000)));
      throw new AppError(429, 'rate_limited', 'Too many login attempts; try again later', { headers: { 'Retry-After': retry } });
    }
    let grant;
    try {
      grant = await deps.broker.mint(body.secret);
    } catch (err) {
      deps.metrics.logins.inc({ result: err instanceof AppError && err.status === 401 ? 'invalid' : 'error' });
      throw err;
    }
    await endSession(req);
    await regenerate(req);
    const tg: TgSession = { secret: deps.cipher.encrypt(body.secret), graph: body.graph, createdAt: deps.now() };
    req.session.tg = tg;
    await save(req);
    await deps.broker.adopt(req.sessionID, grant, deps.absoluteTimeoutSec * 1000);
    deps.metrics.logins.inc({ result: 'ok' });
    res.json({ authenticated: true, graph: tg.graph, tokenExpiresAt: iso(grant.expiresAt) });
  });

  router.post('/logout', async (req: Request, res: Response) => {
    if (req.session?.tg) {
      await endSession(req);
      await destroy(req);
    }
    res.clearCookie(deps.cookieName, cookieClearOptions(deps));
    res.status(204).end();
  });

  router.get('/session', requireSession(deps), async (_req: Request, res: Response) => {
    const ctx = sessionContext(res);
    const state = await deps.tokens.get(ctx.sid);
    const now = deps.now();
    const sessionEnd = Math.min(ctx.tg.createdAt + deps.absoluteTimeoutSec * 1000, now + deps.idleTimeoutSec * 1000);
    res.set('Cache-Control', 'no-store').json({
      authenticated: true,
      graph: ctx.tg.graph,
      ...(ctx.tg.username ? { username: ctx.tg.username } : {}),
      tokenExpiresAt: state ? iso(state.expiresAt) : null,
      sessionExpiresAt: new Date(sessionEnd).toISOString(),
    });
  });

  return router;
}
