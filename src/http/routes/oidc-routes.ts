import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { loginOrigin } from '../route-helpers/login-origin.js';
import { AppError, isAppError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { LoginFlow, SignOn } from '../../oidc/login-flow.js';
import { LogoutTokenError } from '../../oidc/logout-token-error.js';
import type { LogoutTokenVerifier } from '../../oidc/logout-token.js';
import type { OidcSessions } from '../../oidc/oidc-sessions.js';
import type { MappedSessions } from '../../oidc/mapped-sessions.js';
import type { SessionLifecycle } from '../../sessions/lifecycle.js';
import type { CredentialIds } from '../../crypto/credential-id.js';
import { contextOf, requestContext } from '../pipeline/context.js';
import { countsAsSecure } from '../pipeline/loopback-secure.js';
import { cookieClearOptions } from '../session/session.js';
import { cookieValue } from '../session/signed-cookie.js';
import type { GuessTicket } from '../limits/guess-limiter.js';
import { httpsRequired } from '../route-helpers/https-required.js';
import type { LoginBudget } from '../limits/login-budget.js';
import { checkNavigation } from '../route-helpers/same-site-navigation.js';
import { strictRoutes } from '../route-helpers/routing.js';
import { isName } from '@tigergraph-bff/client';

export const BACKCHANNEL_LOGOUT_PATH = '/auth/oidc/backchannel-logout';

/** The credential map's refusals at the callback, as the audit trail's `login.refused` names them. */
const MAP_REFUSALS: Partial<Record<string, 'not_permitted' | 'claims_invalid' | 'graph_not_permitted'>> = {
  sso_not_permitted: 'not_permitted',
  sso_claims_invalid: 'claims_invalid',
  graph_not_permitted: 'graph_not_permitted',
};

import type { Audit } from '../../observability/audit.js';
import type { DescribePrincipal } from '../session/principal.js';
import { auditLogin } from './auth-routes.js';

export interface OidcRoutesDeps {
  /** The audit trail: SSO logins succeeded, refused, limited. */
  audit?: Audit;
  describe?: DescribePrincipal;
  flow: LoginFlow;
  /** The IdP's side of SSO sessions: RP-initiated logout URLs, the sessions a logout token names. */
  sessions: OidcSessions;
  /** OIDC_CREDENTIAL_MAP: the rules' shared tokens (a login checks its rule's credential through them). */
  mapped?: MappedSessions;
  verifyLogoutToken: LogoutTokenVerifier;
  /** The person signed out (RP-initiated or back-channel logout): the MCP endpoint ends their agents' sessions. */
  signedOut?: (subject: { sub?: string; sid?: string }) => Promise<void>;
  /** How sessions start and end (src/sessions/). */
  lifecycle: SessionLifecycle;
  logger: Logger;
  metrics: Metrics;
  cookieName: string;
  cookieSecure: boolean;
  loopbackIsSecure: boolean;
  postLoginPath: string;
  now: () => number;
  /** Callbacks per address (each one costs an IdP code exchange), successful ones included. */
  budget: LoginBudget;
  /** Back-channel logouts per address (BACKCHANNEL_ADDRESS_BUDGET); those whose token verifies are taken back. */
  backchannelBudget: LoginBudget;
  credentialIds: CredentialIds;
}

const PRE_LOGIN_MAX_AGE_SEC = 600;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** JSON for callers that ask for it (the SPA's fetch), a small page for a browser that landed here. */
function wantsJson(req: Request): boolean {
  return req.accepts(['text/html', 'application/json']) === 'application/json';
}

/**
 * `GET /auth/oidc/login` and `GET /auth/oidc/callback` (authorization code + PKCE, state and nonce kept
 * sealed in this browser's pre-login cookie, one use through the IdP's one-use code), `GET /auth/oidc/logout`
 * (RP-initiated logout by navigation), and
 * `POST /auth/oidc/backchannel-logout` (server to server, exempt from the CSRF header by exact path).
 */
export function oidcRoutes(deps: OidcRoutesDeps): Router {
  const routes = strictRoutes('/auth');
  const preCookie = `${deps.cookieName}-sso`;
  const preAttrs = (maxAge: number) =>
    // Lax, unlike the session cookie: the callback is a top-level navigation coming back from the IdP's site.
    `Path=/; HttpOnly${deps.cookieSecure ? '; Secure' : ''}; SameSite=Lax; Max-Age=${maxAge}`;

  routes.get('/oidc/login', async (req: Request, res: Response) => {
    const { forwarded } = requestContext(req);
    if (deps.cookieSecure && !countsAsSecure(req, forwarded, deps.loopbackIsSecure))
      throw httpsRequired(req, { development: deps.loopbackIsSecure });
    const returnTo = typeof req.query.return_to === 'string' ? req.query.return_to : undefined;
    // A credential-map login may name its graph; the callback refuses one the person's rule does not open.
    const graph = req.query.graph;
    if (graph !== undefined && (typeof graph !== 'string' || !isName(graph)))
      throw new AppError('invalid_request', 'graph: must be a graph name');
    const { preLogin, url } = await deps.flow.start(returnTo, graph);
    // The pending login rides in this cookie, sealed (AES-GCM): nothing is stored until a login succeeds.
    res.appendHeader('Set-Cookie', `${preCookie}=${preLogin}; ${preAttrs(PRE_LOGIN_MAX_AGE_SEC)}`);
    res.set('Cache-Control', 'no-store').redirect(303, url);
  });

  routes.get('/oidc/callback', async (req: Request, res: Response, next: NextFunction) => {
    const { session, forwarded } = requestContext(req);
    // The pre-login cookie is spent whatever happens next.
    res.appendHeader('Set-Cookie', `${preCookie}=; ${preAttrs(0)}`);
    const preLogin = cookieValue(req.headers.cookie, preCookie) ?? null;
    const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
    let signOn: SignOn;
    let ticket: GuessTicket | undefined;
    try {
      // Anyone can get a pre-login cookie, and each callback may cost an IdP code exchange: counted per address.
      ticket = await deps.budget.take(forwarded.clientIp);
      signOn = await deps.flow.finish(preLogin, query);
    } catch (err) {
      const limited = isAppError(err) && err.status === 429;
      await ticket?.settle(isAppError(err) && err.status < 500 ? 'refused' : 'unchecked');
      const result = limited ? 'rate_limited' : isAppError(err) && err.status < 500 ? 'invalid' : 'error';
      deps.metrics.logins.inc({ result });
      const address = forwarded.clientIp === undefined ? {} : { address: forwarded.clientIp };
      const reason = (isAppError(err) && MAP_REFUSALS[err.code]) || (result === 'invalid' ? 'invalid' : 'error');
      deps.audit?.emit(
        result === 'rate_limited'
          ? { event: 'login.limited', login: 'oidc', ...address }
          : { event: 'login.refused', login: 'oidc', reason, ...address },
      );
      return failure(req, res, next, err);
    }
    const login = {
      kind: 'oidc' as const,
      refreshToken: signOn.refreshToken,
      sub: signOn.sub,
      ...(signOn.name !== undefined && { name: signOn.name }),
      ...(signOn.idpSid !== undefined && { idpSid: signOn.idpSid }),
      ...(signOn.idToken !== undefined && { idToken: signOn.idToken }),
      ...(signOn.rule !== undefined && { rule: signOn.rule }),
      graph: signOn.graph,
      // The person, never the rule's shared credential: caps, budgets and quotas count people.
      cred: deps.credentialIds('oidc', signOn.sub),
      grant: { token: signOn.accessToken, expiresAt: signOn.expiresAt },
      at: deps.now(),
      from: loginOrigin(req),
    };
    let personal: GuessTicket;
    try {
      // Now that the IdP named the person: their own budget of logins from all addresses, as a secret's or a
      // user's (LOGIN_CREDENTIAL_BUDGET), never the rule's shared credential, which 500 people may share.
      personal = await deps.budget.takeCredential(login.cred);
    } catch (err) {
      await deps.sessions.abandon(undefined, login);
      deps.metrics.logins.inc({ result: 'rate_limited' });
      const address = forwarded.clientIp === undefined ? {} : { address: forwarded.clientIp };
      deps.audit?.emit({ event: 'login.limited', login: 'oidc', ...address });
      return failure(req, res, next, err);
    }
    try {
      // The rule's shared token, minted now if there is none (one per rule and graph, not per person): a
      // credential TigerGraph refuses fails the login here, with nothing stored, not at the first request.
      if (signOn.rule !== undefined && deps.mapped) {
        try {
          await deps.mapped.shared(signOn.rule, signOn.graph);
        } catch (err) {
          await deps.sessions.abandon(undefined, login);
          throw err;
        }
      }
      await deps.lifecycle.establish(login, session);
      await personal.settle('accepted');
      deps.metrics.logins.inc({ result: 'ok' });
      auditLogin(deps, req);
      res.set('Cache-Control', 'no-store').redirect(303, signOn.returnTo);
    } catch (err) {
      await personal.settle(isAppError(err) && err.status < 500 ? 'refused' : 'unchecked');
      return failure(req, res, next, err);
    }
  });

  // RP-initiated logout by navigation: ends this session (its IdP tokens revoked) and sends the browser to the
  // IdP's end_session_endpoint with the id token as hint. A GET, so a page can simply go there; only a
  // top-level navigation from this site counts (same-site-navigation.ts), and the id token appears only in
  // the redirect of such a navigation, never in an answer a page script can read.
  routes.get('/oidc/logout', async (req: Request, res: Response, next: NextFunction) => {
    res.set('Cache-Control', 'no-store');
    const check = checkNavigation(req.headers);
    if (check.kind === 'refused') {
      deps.logger.info({ why: check.why }, 'SSO logout refused: not a navigation from this site');
      const refusal = new AppError(
        'csrf_rejected',
        "Log out with this site's own logout button: a request from another site, a script or a prefetch cannot end the session",
      );
      return failure(req, res, next, refusal, 'Logout did not happen');
    }
    try {
      const { session } = requestContext(req);
      const current = await session.load();
      const sid = session.sid();
      let target = deps.postLoginPath;
      if (current?.tg && sid !== null) {
        // Worked out before the session (and its sealed id token) is gone.
        if (deps.lifecycle.strategyOf(current.tg).kind === 'oidc')
          target = (await deps.sessions.logoutUrl(sid, current.tg, { hint: check.kind === 'navigation' })) ?? target;
        session.ending(current.tg);
        await deps.lifecycle.end(sid, 'logout', current.tg);
        const signOn = current.tg.oidc;
        if (signOn) await deps.signedOut?.({ sub: signOn.sub });
      }
      res.clearCookie(deps.cookieName, cookieClearOptions(deps));
      res.redirect(303, target);
    } catch (err) {
      // As POST /auth/logout: a store outage still makes this browser forget the session.
      res.clearCookie(deps.cookieName, cookieClearOptions(deps));
      return failure(req, res, next, err, 'Logout did not complete');
    }
  });

  routes.post(
    '/oidc/backchannel-logout',
    express.urlencoded({ extended: false, limit: '16kb' }),
    async (req: Request, res: Response) => {
      res.set('Cache-Control', 'no-store');
      // Anyone can post here and each token costs a signature check (and, for an unknown key id, a JWKS
      // fetch): counted per address before anything is looked at, taken back once the IdP's signature holds.
      const ticket = await deps.backchannelBudget.take(requestContext(req).forwarded.clientIp);
      const body = req.body as { logout_token?: unknown } | undefined;
      const token = typeof body?.logout_token === 'string' ? body.logout_token : undefined;
      if (token === undefined) {
        await ticket.settle('refused');
        throw new AppError('invalid_request', 'logout_token is required');
      }
      let subject;
      try {
        subject = await deps.verifyLogoutToken(token);
      } catch (err) {
        await ticket.settle(err instanceof LogoutTokenError ? 'refused' : 'unchecked');
        if (!(err instanceof LogoutTokenError)) throw err;
        deps.logger.warn({ reason: err.message }, 'back-channel logout refused');
        throw new AppError('invalid_request', 'The logout token is not valid');
      }
      await ticket.settle('unchecked');
      let ended = 0;
      for (const found of await deps.sessions.sessionsOf(subject)) {
        if (await deps.lifecycle.end(found.sid, 'backchannel')) ended++;
        await found.unindex();
      }
      await deps.signedOut?.(subject);
      deps.logger.info({ ended }, 'back-channel logout');
      res.status(200).end();
    },
  );

  function failure(
    req: Request,
    res: Response,
    next: NextFunction,
    err: unknown,
    title = 'Sign-in did not complete',
  ): void {
    const appError = isAppError(err) ? err : new AppError('internal_error', { cause: err });
    if (wantsJson(req)) return next(appError);
    const ctx = contextOf(req);
    if (ctx !== undefined) ctx.errorCode = appError.code;
    deps.logger[appError.status >= 500 ? 'error' : 'info'](
      {
        code: appError.code,
        err: appError.cause
          ? {
              name: (appError.cause as Error).name,
              code: (appError.cause as { code?: string }).code,
              message: (appError.cause as Error).message,
            }
          : undefined,
      },
      appError.message,
    );
    const home = escapeHtml(deps.postLoginPath);
    const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${escapeHtml(appError.expose ? appError.message : 'The sign-in service is unavailable; try again shortly')}</p><p><a href="${home}">Back to the start page</a></p></body></html>`;
    res.status(appError.status).set(appError.headers).set('Cache-Control', 'no-store').type('html').send(body);
  }

  return routes.router;
}
