import { type Request, type Response, type Router } from 'express';
import { mapAdminError } from '../../admin/admin-errors.js';
import { checkGraphAccess } from '../../admin/graph-access.js';
import { AppError, isAppError } from '../../errors.js';
import { maskSecret, type AdminCredentials } from '@tigergraph-bff/client';
import type { AdminSurface } from '../../admin/admin-parts.js';
import { ADMIN_CHALLENGE, basicCredentials } from '../route-helpers/basic-credentials.js';
import { strictRoutes } from '../route-helpers/routing.js';
import { contextOf } from '../pipeline/context.js';
import { outcomeOf, type GuessLimiter, type GuessOutcome, type GuessTicket } from '../limits/guess-limiter.js';
import type { LoginBudget } from '../limits/login-budget.js';
import { parseAliasPath, parseCreateSecret, parseGraphQuery, parsePrincipalBody } from '../schemas/admin.js';
import type { CredentialIds } from '../../crypto/credential-id.js';
import type { PrincipalSessions } from '../../sessions/principal-sessions.js';
import { jsonBody } from '../schemas/json-body.js';
import type { Audit } from '../../observability/audit.js';

/** What /admin needs: built by src/admin/admin-parts.ts when ADMIN_ROUTES is on. */
export type AdminRoutesDeps = AdminSurface & {
  /** The audit trail: secret.created and secret.dropped by an admin. */
  audit?: Audit;
};

/** What /admin/sessions needs besides the admin surface: the principals' sessions, and how to name them. */
export interface AdminSessionDeps {
  sessions: PrincipalSessions;
  credentialIds: CredentialIds;
  /** How the audit trail names an operator: the name, or its keyed hash with LOG_USER_NAMES=hashed. */
  operatorName: (username: string) => string;
}

/** Admin-server errors as AppErrors; a rejected login also carries the basic-auth challenge. */
function adminError(err: unknown): unknown {
  const mapped = mapAdminError(err);
  if (isAppError(mapped) && mapped.status === 401) {
    return new AppError(mapped.code, mapped.message, { cause: mapped.cause, headers: ADMIN_CHALLENGE });
  }
  return mapped;
}

/**
 * What an admin call that failed spends of its user's budget: the credentials were accepted unless the
 * admin server refused them (401: a guess, not the user's) or was not reached (5xx: nothing was checked).
 */
const budgetOutcome = (err: unknown): GuessOutcome =>
  isAppError(err) && err.status === 401 ? 'refused' : isAppError(err) && err.status >= 500 ? 'unchecked' : 'accepted';

/**
 * `/admin/secrets`: list (masked), create (value shown once), drop, as the caller. The caller's basic
 * credentials go straight to the admin server for this request and are never stored or logged; the
 * CSRF guard in front of the app covers the state-changing calls. Wrong credentials count against the
 * same guess limits as password login (the same admin-server passwords), so they cannot be tried at speed;
 * right ones against the caller's own budget of admin calls (ADMIN_CREDENTIAL_BUDGET), each of which costs
 * admin-server calls.
 */
export function adminRoutes(
  deps: AdminRoutesDeps & AdminSessionDeps & { guesses: GuessLimiter; budget: LoginBudget },
): Router {
  const routes = strictRoutes('/admin');
  const json = jsonBody();
  const { secrets } = deps;

  async function asCaller<T>(
    req: Request,
    creds: AdminCredentials,
    graph: string | null,
    work: () => Promise<T>,
  ): Promise<T> {
    const ticket = await deps.guesses.admit('admin', contextOf(req)?.forwarded.clientIp, creds.username);
    let spent: GuessTicket;
    try {
      // Counted before the admin server is asked, so parallel calls cannot overrun it; the user name exactly
      // as TigerGraph authenticates it. Refused credentials are taken back (they were a guess, counted above).
      spent = await deps.budget.takeCredential(deps.credentialIds('user', creds.username));
    } catch (err) {
      await ticket.settle('unchecked');
      throw err;
    }
    try {
      if (graph !== null) await checkGraphAccess(secrets.gsql, creds, graph);
      const result = await work();
      await Promise.all([ticket.settle('accepted'), spent.settle('accepted')]);
      return result;
    } catch (err) {
      const mapped = adminError(err);
      await Promise.all([ticket.settle(outcomeOf(mapped)), spent.settle(budgetOutcome(mapped))]);
      throw mapped;
    }
  }

  routes.get('/secrets', async (req: Request, res: Response) => {
    const creds = basicCredentials(req);
    const graph = parseGraphQuery(req.query, deps.graphRequired);
    const list = await asCaller(req, creds, graph, () => secrets.listSecrets(creds, graph ?? ''));
    res.set('Cache-Control', 'no-store').json({
      secrets: list.map((s) => ({
        alias: s.alias,
        // Both wire paths mask already; a value that somehow is not masked is masked here.
        secret: s.secret.includes('****') ? s.secret : maskSecret(s.secret),
        ...(s.graph ? { graph: s.graph } : {}),
      })),
    });
  });

  routes.post('/secrets', json, async (req: Request, res: Response) => {
    const creds = basicCredentials(req);
    const { graph, alias } = parseCreateSecret(req.body, deps.graphRequired);
    const made = await asCaller(req, creds, graph, () => secrets.createSecret(creds, graph ?? '', alias));
    deps.audit?.emit({ event: 'secret.created', alias: made.alias, by: 'admin' });
    // The only time the value is ever shown: nothing may cache it.
    res.status(201).set('Cache-Control', 'no-store').json({ alias: made.alias, secret: made.secret });
  });

  routes.delete('/secrets/:alias', async (req: Request, res: Response) => {
    const creds = basicCredentials(req);
    const alias = parseAliasPath(req.params);
    const graph = parseGraphQuery(req.query, deps.graphRequired);
    await asCaller(req, creds, graph, () => secrets.dropSecret(creds, graph ?? '', alias));
    deps.audit?.emit({ event: 'secret.dropped', alias, by: 'admin' });
    res.status(204).end();
  });

  /**
   * An operator: credentials the admin server accepts (a `USE GLOBAL` any user may run, so a wrong password is
   * 401 and counts against the guess limits as on every /admin route), of a user SESSION_OPERATORS names.
   */
  async function asOperator(req: Request): Promise<string> {
    const creds = basicCredentials(req);
    await asCaller(req, creds, null, () => secrets.gsql.runGsql(creds, 'USE GLOBAL'));
    if (!deps.sessionOperators.includes(creds.username))
      throw new AppError('forbidden', "Only a user SESSION_OPERATORS names may list or end another person's sessions");
    return creds.username;
  }

  const principalOf = (body: unknown): string => {
    const named = parsePrincipalBody(body);
    return deps.credentialIds(named.kind, named.value);
  };

  // POST, not GET: a secret names its principal, and a secret goes in a body, never in a URL.
  routes.post('/sessions/list', json, async (req: Request, res: Response) => {
    const principal = principalOf(req.body);
    await asOperator(req);
    const sessions = await deps.sessions.list(principal);
    res.set('Cache-Control', 'no-store').json({
      sessions: sessions.map((s) => ({
        id: s.id,
        login: s.login,
        graph: s.graph,
        createdAt: new Date(s.createdAt).toISOString(),
        lastSeenAt: new Date(s.lastSeenAt).toISOString(),
        client: s.client,
        address: s.address,
      })),
    });
  });

  // The operator's switch: every session of the principal, and its logins in flight, through the lifecycle.
  routes.post('/sessions/end', json, async (req: Request, res: Response) => {
    const principal = principalOf(req.body);
    const operator = await asOperator(req);
    const ended = await deps.sessions.endAll(principal, 'operator', { operator: deps.operatorName(operator) });
    res.set('Cache-Control', 'no-store').json({ ended });
  });

  return routes.router;
}
