import { type Request, type Response, type Router } from 'express';
import { requestContext } from '../pipeline/context.js';
import { AppError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import { sealedAs } from '../../store/crypto.js';
import type { Cipher, TokenStore, TombstoneStore } from '../../store/types.js';
import type { TokenBroker } from '../../tokens/token-broker.js';
import { httpsRequired } from './https-required.js';
import { countsAsSecure } from '../pipeline/loopback-secure.js';
import { strictRoutes } from './routing.js';
import { cookieClearOptions } from '../session/session.js';
import { outcomeOf, type GuessLimiter, type GuessTicket } from './guess-limiter.js';
import { requireSession, sessionContext, type RequireSessionDeps } from '../session/require-session.js';
import { jsonBody } from '../schemas/json-body.js';
import { parseLoginBody, parsePasswordLogin, wantsPasswordLogin } from '../schemas/login.js';
import type { SessionSecrets } from '../../admin/session-secrets.js';
import type { SecretDrop } from '../../store/secret-drops.js';
import type { TgSession } from '../session/session-data.js';
import type { SessionEnd, SessionEnds } from '../../tokens/session-ends.js';
import type { OidcSessions } from '../../oidc/oidc-sessions.js';

export interface AuthRoutesDeps extends RequireSessionDeps {
  broker: TokenBroker;
  tokens: TokenStore;
  tombstones: TombstoneStore;
  guesses: GuessLimiter;
  cipher: Cipher;
  logger: Logger;
  metrics: Metrics;
  cookieName: string;
  cookieSecure: boolean;
  /** Development: plain http to a loopback name counts as secure (see loopback-secure.ts). */
  loopbackIsSecure?: boolean;
  idleTimeoutSec: number;
  /** Where login records each session, so its token is deleted however the session ends. */
  sessionEnds: SessionEnds;
  /** Set when PASSWORD_LOGIN is on: creates and drops the per-session secrets. */
  passwords?: SessionSecrets;
  /** Set when OIDC is configured: how OIDC sessions end (their credentials never reach `broker`). */
  oidc?: OidcSessions;
}

/** Which login a session came from, as GET /auth/session and GET /auth/methods name them. */
export const loginKindOf = (tg: TgSession): 'secret' | 'password' | 'oidc' =>
  tg.oidc ? 'oidc' : tg.secretAlias ? 'password' : 'secret';

export interface AuthRoutes {
  router: Router;
  /** Ends a session everywhere (login replacing it, logout), whichever kind of login made it. */
  endSession(sid: string, tg: TgSession): Promise<void>;
}

const iso = (epochSec: number) => new Date(epochSec * 1000).toISOString();

/** The drop entry login recorded for a service-created secret. */
const dropOf = (tg: TgSession): SecretDrop => ({
  alias: tg.secretAlias ?? '',
  graph: tg.graph,
  sealedSecret: tg.secretDrop ?? tg.secret,
});

export function authRoutes(deps: AuthRoutesDeps): AuthRoutes {
  const routes = strictRoutes('/auth');
  const json = jsonBody();
  const tombstoneMs = deps.absoluteTimeoutSec * 1000;
  const endOf = (sid: string, tg: TgSession): SessionEnd => ({
    sid,
    endsBy: tg.createdAt + tombstoneMs,
    sealedSecret: tg.secret,
    ...(tg.oidc && { kind: 'oidc' as const }),
  });

  /** Ends a session everywhere: tombstone first so in-flight requests cannot bring it back. */
  async function endSession(sid: string, tg: TgSession): Promise<void> {
    if (tg.oidc) {
      // An OIDC session's credential is an IdP refresh token: it must never reach the TigerGraph broker.
      if (deps.oidc) await deps.oidc.end(sid, tg);
      else await deps.tombstones.mark(sid, tombstoneMs);
      await deps.sessionEnds
        .forget(endOf(sid, tg))
        .catch((err: unknown) => deps.logger.warn({ err }, 'could not clear a session-end entry'));
      return;
    }
    await deps.tombstones.mark(sid, tombstoneMs);
    try {
      await deps.broker.revoke(sid, deps.cipher.decrypt(tg.secret, sealedAs.sessionSecret(sid)));
    } catch (err) {
      // The session ends regardless; a token left upstream expires on its own.
      deps.logger.warn({ err, code: (err as AppError).code }, 'token delete at logout failed');
      await deps.tokens.delete(sid).catch(() => undefined);
    }
    // Left behind, the entry costs the sweeper one look once the session is gone, and nothing else.
    await deps.sessionEnds
      .forget(endOf(sid, tg))
      .catch((err: unknown) => deps.logger.warn({ err }, 'could not clear a session-end entry'));
    // After the token: deleting it needs the secret. release() never throws; a failed drop is swept later.
    if (tg.secretAlias && deps.passwords) await deps.passwords.release(dropOf(tg));
  }

  async function admit(req: Request, username: string | undefined): Promise<GuessTicket> {
    try {
      return await deps.guesses.admit('login', requestContext(req).forwarded.clientIp ?? 'unknown', username);
    } catch (err) {
      if (err instanceof AppError && err.status === 429) deps.metrics.logins.inc({ result: 'rate_limited' });
      throw err;
    }
  }

  function countFailure(err: unknown): never {
    deps.metrics.logins.inc({ result: err instanceof AppError && err.status === 401 ? 'invalid' : 'error' });
    throw err;
  }

  routes.post('/login', json, async (req: Request, res: Response) => {
    const { session, forwarded } = requestContext(req);
    if (deps.cookieSecure && !countsAsSecure(req, forwarded, deps.loopbackIsSecure === true))
      throw httpsRequired(req, { development: deps.loopbackIsSecure === true });
    const byPassword = wantsPasswordLogin(req.body)
      ? parsePasswordLogin(req.body, {
          enabled: deps.passwords !== undefined,
          graphRequired: deps.passwords?.graphRequired ?? true,
        })
      : undefined;
    const bySecret = byPassword === undefined ? parseLoginBody(req.body) : undefined;
    const ticket = await admit(req, byPassword?.creds.username);
    const createdAt = deps.now();
    let secret = bySecret?.secret ?? '';
    let created: Awaited<ReturnType<SessionSecrets['create']>> | undefined;
    try {
      if (byPassword && deps.passwords) {
        // The login gets its own secret, due to be dropped when the session's absolute timeout ends.
        const dueAt = createdAt + deps.absoluteTimeoutSec * 1000;
        created = await deps.passwords.create(byPassword.creds, byPassword.graph, dueAt).catch(countFailure);
        secret = created.secret;
      }
    } catch (err) {
      await ticket.settle(outcomeOf(err));
      throw err;
    }
    try {
      const grant = await deps.broker.mint(secret).catch(countFailure);
      await ticket.settle('accepted');
      const current = await session.load();
      const oldSid = session.sid();
      if (current?.tg && oldSid !== null) await endSession(oldSid, current.tg);
      const sid = await session.regenerate();
      const tg: TgSession = {
        // Sealed for the regenerated id: copied into another session's record, it does not open.
        secret: deps.cipher.encrypt(secret, sealedAs.sessionSecret(sid)),
        graph: byPassword?.graph ?? bySecret?.graph ?? null,
        createdAt,
        ...(byPassword &&
          created && {
            username: byPassword.creds.username,
            secretAlias: created.drop.alias,
            secretDrop: created.drop.sealedSecret,
          }),
      };
      await session.save(sid, tg);
      await deps.broker.adopt(sid, grant, deps.absoluteTimeoutSec * 1000);
      await deps.sessionEnds.watch(endOf(sid, tg), deps.now() + deps.idleTimeoutSec * 1000);
      deps.metrics.logins.inc({ result: 'ok' });
      res.json({ authenticated: true, graph: tg.graph, tokenExpiresAt: iso(grant.expiresAt) });
    } catch (err) {
      await ticket.settle(outcomeOf(err));
      // The secret was made for this login only: a login that fails must not leave it behind.
      if (created) await deps.passwords?.release(created.drop);
      throw err;
    }
  });

  routes.post('/logout', async (req: Request, res: Response) => {
    const { session } = requestContext(req);
    const current = await session.load();
    const sid = session.sid();
    let logoutUrl: string | undefined;
    if (current?.tg && sid !== null) {
      // Worked out before the session (and its sealed id token) is gone.
      if (current.tg.oidc && deps.oidc) logoutUrl = await deps.oidc.logoutUrl(sid, current.tg);
      await endSession(sid, current.tg);
      await session.destroy();
    }
    res.clearCookie(deps.cookieName, cookieClearOptions(deps));
    // RP-initiated logout: the SPA sends the browser there to end the IdP session too.
    if (logoutUrl !== undefined) res.status(200).set('Cache-Control', 'no-store').json({ logoutUrl });
    else res.status(204).end();
  });

  routes.get('/session', requireSession(), async (_req: Request, res: Response) => {
    const ctx = sessionContext(res);
    const state = await deps.tokens.get(ctx.sid);
    const now = deps.now();
    const sessionEnd = Math.min(ctx.tg.createdAt + deps.absoluteTimeoutSec * 1000, now + deps.idleTimeoutSec * 1000);
    res.set('Cache-Control', 'no-store').json({
      authenticated: true,
      graph: ctx.tg.graph,
      login: loginKindOf(ctx.tg),
      ...(ctx.tg.username ? { username: ctx.tg.username } : {}),
      ...(ctx.tg.oidc
        ? { sub: ctx.tg.oidc.sub, ...(ctx.tg.oidc.name !== undefined && { name: ctx.tg.oidc.name }) }
        : {}),
      tokenExpiresAt: state ? iso(state.expiresAt) : null,
      sessionExpiresAt: new Date(sessionEnd).toISOString(),
    });
  });

  // Public: which logins this service offers, so the demo page (or any SPA) shows the right buttons.
  routes.get('/methods', (_req: Request, res: Response) => {
    res.set('Cache-Control', 'no-store').json({
      secret: true,
      password: deps.passwords !== undefined,
      oidc: deps.oidc !== undefined,
      ...(deps.oidc && { oidcLoginUrl: '/auth/oidc/login' }),
    });
  });

  return { router: routes.router, endSession };
}
