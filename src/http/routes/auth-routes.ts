import { type Request, type RequestHandler, type Response, type Router } from 'express';
import { requestContext } from '../pipeline/context.js';
import { AppError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { CredentialIds } from '../../crypto/credential-id.js';
import type { TokenStore } from '../../store/types.js';
import type { Login } from '../../sessions/strategy.js';
import type { SessionLifecycle } from '../../sessions/lifecycle.js';
import type { TokenBroker } from '../../tokens/token-broker.js';
import type { TokenGrant } from '@tigergraph-bff/client';
import { httpsRequired } from '../route-helpers/https-required.js';
import { countsAsSecure } from '../pipeline/loopback-secure.js';
import { strictRoutes } from '../route-helpers/routing.js';
import { cookieClearOptions } from '../session/session.js';
import { outcomeOf, type GuessLimiter, type GuessOutcome, type GuessTicket } from '../limits/guess-limiter.js';
import type { LoginBudget } from '../limits/login-budget.js';
import type { SessionsBudget } from '../limits/sessions-budget.js';
import { requireSession, sessionContext } from '../session/require-session.js';
import type { RequireSessionDeps } from '../session/session-gate.js';
import { jsonBody, optionalJsonBody } from '../schemas/json-body.js';
import { isSessionHandle, parseLogoutBody } from '../schemas/sessions.js';
import { loginOrigin } from '../route-helpers/login-origin.js';
import { listedView, type ListedSession, type PrincipalSessions } from '../../sessions/principal-sessions.js';
import { credentialOf } from '../../sessions/session-data.js';
import type { SessionContext } from '../session/session-gate.js';
import { parseLoginBody, parsePasswordLogin, wantsPasswordLogin } from '../schemas/login.js';
import type { SessionSecrets } from '../../admin/session-secrets.js';

import type { Audit } from '../../observability/audit.js';
import type { DescribePrincipal } from '../session/principal.js';

export interface AuthRoutesDeps extends RequireSessionDeps {
  broker: TokenBroker;
  tokens: TokenStore;
  guesses: GuessLimiter;
  /** Logins per address and per credential, successful ones included. */
  budget: LoginBudget;
  credentialIds: CredentialIds;
  /** How sessions start and end (src/sessions/). */
  lifecycle: SessionLifecycle;
  logger: Logger;
  metrics: Metrics;
  cookieName: string;
  cookieSecure: boolean;
  /** Development: plain http to a loopback name counts as secure (see loopback-secure.ts). */
  loopbackIsSecure?: boolean;
  idleTimeoutSec: number;
  /** Set when PASSWORD_LOGIN is on: creates the per-session secrets. */
  passwords?: SessionSecrets;
  /** Set when OIDC is configured (GET /auth/methods offers it). */
  oidc?: boolean;
  /**
   * OIDC_CREDENTIAL_MAP: SSO logins use a rule's TigerGraph credential (GET /auth/methods says so, and that
   * the login takes `?graph=`); GET /auth/session then names the rule and the graphs it opens.
   */
  oidcCredentialMap?: boolean;
  /** The audit trail: logins succeeded, refused, limited (session ends are the lifecycle's). */
  audit?: Audit;
  describe?: DescribePrincipal;
  /** The caller's sessions, listed and ended (GET/DELETE /auth/sessions, logout everywhere). */
  sessions: PrincipalSessions;
  /** Calls of the session routes per principal (SESSIONS_ROUTE_BUDGET): 429 beyond. */
  sessionsBudget: SessionsBudget;
  /** The opaque handle of a session id (the keyed hash the access line and audit trail name it by). */
  sessionHandle: (sid: string) => string;
}

/** A listed session as GET /auth/sessions answers it: never its id, only its handle. */
function shown(session: ListedSession, current: string) {
  const { id, ...rest } = listedView(session);
  return { id, current: session.sid === current, ...rest };
}

const sessionNotFound = () => new AppError('session_not_found', 'No session of yours has that id');

/** A login that made a session, for the audit trail: who (as the access line names them) and from where. */
export function auditLogin(deps: { audit?: Audit; describe?: DescribePrincipal }, req: Request): void {
  const ctx = requestContext(req);
  const acted = ctx.session.principal();
  if (deps.audit === undefined || deps.describe === undefined || acted === undefined) return;
  const address = ctx.forwarded.clientIp;
  deps.audit.emit({
    event: 'login.succeeded',
    ...deps.describe(acted.sid, acted.tg),
    ...(address !== undefined && { address }),
  });
}

const iso = (epochSec: number) => new Date(epochSec * 1000).toISOString();

export function authRoutes(deps: AuthRoutesDeps): Router {
  const routes = strictRoutes('/auth');
  const json = jsonBody();
  const { lifecycle } = deps;

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
    // The principal is the user name exactly as TigerGraph authenticates it: `alice` and `Alice` are two users,
    // and one must never end the other's sessions or spend her budgets (the guess limits still fold case: a
    // guesser gains nothing by changing it).
    const credential = byPassword
      ? deps.credentialIds('user', byPassword.creds.username)
      : deps.credentialIds('secret', bySecret?.secret ?? '');
    const kind = byPassword ? 'password' : 'secret';
    const ticket = await admit(req, credential, byPassword?.creds.username, kind);
    const secretLogin = bySecret?.secret ?? '';
    const at = deps.now();
    let created: Awaited<ReturnType<SessionSecrets['create']>> | undefined;
    let grant: TokenGrant;
    try {
      if (byPassword && deps.passwords) {
        // The login gets its own secret; its drop is also due at the absolute timeout, as a backstop.
        const dueAt = at + deps.absoluteTimeoutSec * 1000;
        created = await deps.passwords.create(byPassword.creds, byPassword.graph, dueAt).catch(countFailure(req, kind));
      }
      // The graph goes along, so TigerGraph refuses a graph that does not exist (or is not the secret's) now.
      grant = await deps.broker
        .mint(created?.secret ?? secretLogin, byPassword?.graph ?? bySecret?.graph ?? undefined)
        .catch(countFailure(req, kind));
      await ticket.settle('accepted');
    } catch (err) {
      await ticket.settle(outcomeOf(err));
      // The secret was made for this login only: a login that fails must not leave it behind.
      if (created) await deps.passwords?.release(created.drop);
      throw err;
    }
    const graph = byPassword?.graph ?? bySecret?.graph ?? null;
    const login: Login =
      byPassword && created
        ? {
            kind: 'password',
            secret: created.secret,
            username: byPassword.creds.username,
            drop: created.drop,
            graph,
            cred: credential,
            grant,
            at,
            from: loginOrigin(req),
          }
        : { kind: 'secret', secret: secretLogin, graph, cred: credential, grant, at, from: loginOrigin(req) };
    await lifecycle.establish(login, session);
    deps.metrics.logins.inc({ result: 'ok' });
    auditLogin(deps, req);
    res.json({ authenticated: true, graph, tokenExpiresAt: iso(grant.expiresAt) });
  });

  // Ends this service's session of any kind (an SSO session's IdP tokens revoked too). To end the IdP's own
  // session as well, a page navigates to GET /auth/oidc/logout instead (oidc-routes.ts): the IdP's logout URL
  // carries the id token, and no answer a script can read ever does.
  /** The principal a logged-in session counts under: the TigerGraph user, the IdP subject, or the secret. */
  const principalOf = (ctx: SessionContext): string => credentialOf(deps.credentialIds, ctx.tg, ctx.credential);

  /** Ends the request's own session: the logout of it, whatever route asked. */
  async function logOut(req: Request): Promise<void> {
    const { session } = requestContext(req);
    const current = await session.load();
    const sid = session.sid();
    if (current?.tg && sid !== null) {
      session.ending(current.tg);
      await lifecycle.end(sid, 'logout', current.tg);
    }
  }

  /**
   * A logout whose body is refused (not JSON, over its 1 KiB, not `{"everywhere": boolean}`) still ends this
   * session, then answers the refusal (400/413): the cookie is cleared on every logout answer
   * (logout-clears-cookie.ts), and a browser logged out must not leave its session live upstream until the
   * idle timeout for anyone holding a copy of the cookie. "Everywhere" is not done: the answer says the body
   * was wrong, so the caller knows only this session ended.
   */
  const endsOnRefusal = async (req: Request, err: unknown): Promise<never> => {
    await logOut(req);
    throw err;
  };
  const logoutBody = optionalJsonBody();
  const readLogoutBody: RequestHandler = (req, res, next) =>
    logoutBody(req, res, (err?: unknown) => {
      if (err === undefined) return next();
      endsOnRefusal(req, err).catch(next);
    });

  // `{"everywhere": true}` ends every session of the caller's principal first, then this one.
  routes.post('/logout', readLogoutBody, async (req: Request, res: Response) => {
    let everywhere: boolean;
    try {
      ({ everywhere } = parseLogoutBody(req.body));
    } catch (err) {
      return endsOnRefusal(req, err);
    }
    if (everywhere) {
      const live = await requestContext(req)
        .session.live()
        .catch(() => null);
      if (live !== null)
        await deps.sessions.endAll(principalOf(live), 'ended', { session: deps.sessionHandle(live.sid) }, live.sid);
    }
    await logOut(req);
    res.clearCookie(deps.cookieName, cookieClearOptions(deps));
    res.status(204).end();
  });

  routes.get('/sessions', requireSession(), async (_req: Request, res: Response) => {
    const ctx = sessionContext(res);
    const principal = principalOf(ctx);
    await deps.sessionsBudget.take(principal, 'list');
    const sessions = await deps.sessions.list(principal);
    res.set('Cache-Control', 'no-store').json({ sessions: sessions.map((s) => shown(s, ctx.sid)) });
  });

  // Every session of the caller but this one.
  routes.delete('/sessions', requireSession(), async (_req: Request, res: Response) => {
    const ctx = sessionContext(res);
    const principal = principalOf(ctx);
    await deps.sessionsBudget.take(principal, 'end');
    const ended = await deps.sessions.endAll(principal, 'ended', { session: deps.sessionHandle(ctx.sid) }, ctx.sid);
    res.set('Cache-Control', 'no-store').json({ ended });
  });

  // One of the caller's sessions by its handle; another person's handle is not found, as a made-up one is.
  routes.delete('/sessions/:id', requireSession(), async (req: Request, res: Response) => {
    const ctx = sessionContext(res);
    const principal = principalOf(ctx);
    // Counted whatever the handle, malformed ones too: guessing handles is bounded as listing is.
    await deps.sessionsBudget.take(principal, 'end');
    const id = req.params['id'];
    if (!isSessionHandle(id)) throw sessionNotFound();
    const outcome = await deps.sessions.endOne(principal, id, { session: deps.sessionHandle(ctx.sid) }, ctx.sid);
    if (outcome === 'none') throw sessionNotFound();
    if (outcome === 'current') {
      await logOut(req);
      res.clearCookie(deps.cookieName, cookieClearOptions(deps));
    }
    res.status(204).end();
  });

  routes.get('/session', requireSession(), async (_req: Request, res: Response) => {
    const ctx = sessionContext(res);
    // The TigerGraph token the session relays: a credential-map session's is its rule's, shared.
    const state = await deps.tokens.get(lifecycle.strategyOf(ctx.tg).tokenKey?.(ctx.tg) ?? ctx.sid);
    const now = deps.now();
    const sessionEnd = Math.min(ctx.tg.createdAt + deps.absoluteTimeoutSec * 1000, now + deps.idleTimeoutSec * 1000);
    res.set('Cache-Control', 'no-store').json({
      authenticated: true,
      graph: ctx.tg.graph,
      ...lifecycle.view(ctx.tg),
      tokenExpiresAt: state ? iso(state.expiresAt) : null,
      sessionExpiresAt: new Date(sessionEnd).toISOString(),
    });
  });

  // Public: which logins this service offers, so the demo page (or any SPA) shows the right buttons.
  routes.get('/methods', async (req: Request, res: Response) => {
    const signedIn = deps.oidcCredentialMap === true ? await mappedPerson(req) : undefined;
    res.set('Cache-Control', 'no-store').json({
      secret: true,
      password: deps.passwords !== undefined,
      oidc: deps.oidc === true,
      ...(deps.oidc === true && {
        oidcLoginUrl: '/auth/oidc/login',
        oidcLogoutUrl: '/auth/oidc/logout',
        // Only with the map: without it, the answer stays what it was (the IdP's JWT is relayed).
        ...(deps.oidcCredentialMap === true && { oidcCredentialMap: true }),
      }),
      ...(signedIn && { signedIn }),
    });
  });

  /**
   * With the credential map, a browser already signed in by it learns who it is, through which rule, and
   * which graphs that rule opens (never the credential). Only a request with a session cookie costs a
   * session read; an anonymous one, or any without the map, costs nothing.
   */
  async function mappedPerson(req: Request) {
    const { session } = requestContext(req);
    if (session.sid() === null) return undefined;
    const live = await session.live().catch(() => null);
    const tg = live?.tg;
    if (tg?.oidc?.rule === undefined) return undefined;
    const view = lifecycle.view(tg);
    return { name: tg.oidc.name ?? tg.oidc.sub, rule: tg.oidc.rule, graphs: view.graphs ?? [] };
  }

  return routes.router;
}
