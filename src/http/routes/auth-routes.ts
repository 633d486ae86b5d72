import { type Request, type Response, type Router } from 'express';
import { requestContext } from '../pipeline/context.js';
import { AppError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { CredentialIds } from '../../store/credential-id.js';
import { sealedAs } from '../../store/crypto.js';
import type { Cipher, TokenStore } from '../../store/types.js';
import type { TokenBroker } from '../../tokens/token-broker.js';
import { httpsRequired } from './https-required.js';
import { countsAsSecure } from '../pipeline/loopback-secure.js';
import { strictRoutes } from './routing.js';
import { cookieClearOptions } from '../session/session.js';
import { outcomeOf, type GuessLimiter, type GuessOutcome, type GuessTicket } from './guess-limiter.js';
import type { LoginBudget } from './login-budget.js';
import type { SessionCap } from './session-cap.js';
import type { SessionEnding } from './session-end.js';
import { requireSession, sessionContext, type RequireSessionDeps } from '../session/require-session.js';
import { jsonBody } from '../schemas/json-body.js';
import { parseLoginBody, parsePasswordLogin, wantsPasswordLogin } from '../schemas/login.js';
import type { SessionSecrets } from '../../admin/session-secrets.js';
import { loginKindOf, type TgSession } from '../session/session-data.js';
import type { DescribePrincipal } from '../session/principal.js';
import type { Audit } from '../../observability/audit.js';
import type { SessionEnds } from '../../tokens/session-ends.js';
import type { OidcSessions } from '../../oidc/oidc-sessions.js';

export interface AuthRoutesDeps extends RequireSessionDeps {
  broker: TokenBroker;
  tokens: TokenStore;
  guesses: GuessLimiter;
  /** Logins per address and per credential, successful ones included. */
  budget: LoginBudget;
  /** Live sessions per credential. */
  cap: SessionCap;
  credentialIds: CredentialIds;
  /** How a session ends (logout, a login replacing it). */
  ending: SessionEnding;
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
  /** The audit trail: login succeeded, refused, limited. */
  audit?: Audit;
  describe?: DescribePrincipal;
}

export { loginKindOf };

const iso = (epochSec: number) => new Date(epochSec * 1000).toISOString();

export function authRoutes(deps: AuthRoutesDeps): Router {
  const routes = strictRoutes('/auth');
  const json = jsonBody();
  const { ending } = deps;

  /**
   * The guess limits, then the login budget, as one ticket: a 429 from either takes nothing. Guesses first,
   * so an address that is past its failures does not even get a budget counter for each secret it tries.
   */
  async function admit(
    req: Request,
    credential: string,
    username: string | undefined,
    login: 'secret' | 'password',
  ): Promise<GuessTicket> {
    const address = requestContext(req).forwarded.clientIp;
    try {
      const guess = await deps.guesses.admit('login', address, username);
      let budget: GuessTicket;
      try {
        budget = await deps.budget.take(address, credential);
      } catch (err) {
        await guess.settle('unchecked');
        throw err;
      }
      return {
        settle: async (outcome: GuessOutcome) =>
          void (await Promise.all([guess.settle(outcome), budget.settle(outcome)])),
      };
    } catch (err) {
      if (err instanceof AppError && err.status === 429) {
        deps.metrics.logins.inc({ result: 'rate_limited' });
        deps.audit?.emit({ event: 'login.limited', login, ...(address !== undefined && { address }) });
      }
      throw err;
    }
  }

  const countFailure =
    (req: Request, login: 'secret' | 'password') =>
    (err: unknown): never => {
      const reason = err instanceof AppError && err.status === 401 ? 'invalid' : 'error';
      deps.metrics.logins.inc({ result: reason });
      const address = requestContext(req).forwarded.clientIp;
      deps.audit?.emit({ event: 'login.refused', login, reason, ...(address !== undefined && { address }) });
      throw err;
    };

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
    // User names compare as the guess limits compare them: one user, however its name is cased.
    const credential = byPassword
      ? deps.credentialIds('user', byPassword.creds.username.toLowerCase())
      : deps.credentialIds('secret', bySecret?.secret ?? '');
    const kind = byPassword ? 'password' : 'secret';
    const ticket = await admit(req, credential, byPassword?.creds.username, kind);
    const createdAt = deps.now();
    let secret = bySecret?.secret ?? '';
    let created: Awaited<ReturnType<SessionSecrets['create']>> | undefined;
    try {
      if (byPassword && deps.passwords) {
        // The login gets its own secret, due to be dropped when the session's absolute timeout ends.
        const dueAt = createdAt + deps.absoluteTimeoutSec * 1000;
        created = await deps.passwords.create(byPassword.creds, byPassword.graph, dueAt).catch(countFailure(req, kind));
        secret = created.secret;
      }
    } catch (err) {
      await ticket.settle(outcomeOf(err));
      throw err;
    }
    try {
      const grant = await deps.broker.mint(secret).catch(countFailure(req, kind));
      await ticket.settle('accepted');
      const current = await session.load();
      const oldSid = session.sid();
      if (current?.tg && oldSid !== null) await ending.end(oldSid, current.tg, 'replaced');
      const sid = await session.regenerate();
      const tg: TgSession = {
        // Sealed for the regenerated id: copied into another session's record, it does not open.
        secret: deps.cipher.encrypt(secret, sealedAs.sessionSecret(sid)),
        graph: byPassword?.graph ?? bySecret?.graph ?? null,
        createdAt,
        cred: credential,
        ...(byPassword &&
          created && {
            username: byPassword.creds.username,
            secretAlias: created.drop.alias,
            secretDrop: created.drop.sealedSecret,
          }),
      };
      // Counted before it exists, so no saved session is ever missing from its credential's count.
      const capped = await deps.cap.admit(credential, sid, createdAt);
      await session.save(sid, tg);
      await deps.broker.adopt(sid, grant, deps.absoluteTimeoutSec * 1000);
      await deps.sessionEnds.watch(ending.endOf(sid, tg), deps.now() + deps.idleTimeoutSec * 1000);
      await capped.enforce(byPassword ? 'password' : 'secret');
      deps.metrics.logins.inc({ result: 'ok' });
      if (deps.describe)
        deps.audit?.emit({
          event: 'login.succeeded',
          ...deps.describe(sid, tg),
          ...(forwarded.clientIp !== undefined && { address: forwarded.clientIp }),
        });
      res.json({ authenticated: true, graph: tg.graph, tokenExpiresAt: iso(grant.expiresAt) });
    } catch (err) {
      await ticket.settle(outcomeOf(err));
      // The secret was made for this login only: a login that fails must not leave it behind.
      if (created) await deps.passwords?.release(created.drop);
      throw err;
    }
  });

  // Ends this service's session of any kind (an SSO session's IdP tokens revoked too). To end the IdP's own
  // session as well, a page navigates to GET /auth/oidc/logout instead (oidc-routes.ts): the IdP's logout URL
  // carries the id token, and no answer a script can read ever does.
  routes.post('/logout', async (req: Request, res: Response) => {
    const { session } = requestContext(req);
    const current = await session.load();
    const sid = session.sid();
    if (current?.tg && sid !== null) {
      await ending.end(sid, current.tg);
      await session.destroy();
    }
    res.clearCookie(deps.cookieName, cookieClearOptions(deps));
    res.status(204).end();
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
      ...(deps.oidc && { oidcLoginUrl: '/auth/oidc/login', oidcLogoutUrl: '/auth/oidc/logout' }),
    });
  });

  return routes.router;
}
