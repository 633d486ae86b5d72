import { type Request, type Response, type Router } from 'express';
import { mapAdminError } from '../../admin/admin-errors.js';
import { checkGraphAccess } from '../../admin/graph-access.js';
import { AppError, isAppError } from '../../errors.js';
import { maskSecret, TigerGraphError, type AdminCredentials } from '@tigergraph-bff/client';
import type { AdminSurface } from '../../admin/admin-parts.js';
import { ADMIN_CHALLENGE, basicCredentials } from '../route-helpers/basic-credentials.js';
import { strictRoutes } from '../route-helpers/routing.js';
import { contextOf } from '../pipeline/context.js';
import { outcomeOf, type GuessLimiter, type GuessOutcome, type GuessTicket } from '../limits/guess-limiter.js';
import type { LoginBudget } from '../limits/login-budget.js';
import {
  parseAliasPath,
  parseCreateSecret,
  parseGraphQuery,
  parsePrincipalBody,
  type NamedPrincipal,
} from '../schemas/admin.js';
import type { CredentialIds } from '../../crypto/credential-id.js';
import { listedView, type ListedSession, type PrincipalSessions } from '../../sessions/principal-sessions.js';
import type { SecretMasks } from '../../sessions/secret-masks.js';
import { jsonBody } from '../schemas/json-body.js';
import type { Audit } from '../../observability/audit.js';

/** What /admin needs: built by src/admin/admin-parts.ts when ADMIN_ROUTES is on. */
export type AdminRoutesDeps = AdminSurface & {
  /** The audit trail: secret.created and secret.dropped by an admin. */
  audit?: Audit;
  /** Secret logins by masked form, for the switch by alias where secrets are shown masked only. */
  masks?: SecretMasks;
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

  /**
   * The credential ids a named principal stands for: one, or for an alias on a version that shows secrets
   * masked only, every secret on record with that masked form (`masked`). Asked of the admin server after the
   * operator's check, so nobody learns whether an alias exists without being an operator.
   */
  async function principalsOf(req: Request, named: NamedPrincipal): Promise<{ ids: string[]; masked: boolean }> {
    if (named.kind !== 'alias') return { ids: [deps.credentialIds(named.kind, named.value)], masked: false };
    const creds = basicCredentials(req);
    if (deps.aliasesMasked && named.owner !== undefined && named.owner !== creds.username)
      throw new AppError(
        'invalid_request',
        "owner: this TigerGraph version shows only the caller's own secrets (SHOW SECRET); call as their owner",
      );
    const found = await secrets.secretOf(creds, named.alias, named.owner).catch((err: unknown) => {
      if (err instanceof TigerGraphError && err.status === 403)
        throw new AppError('forbidden', "Only a superuser may look up another user's secrets", { cause: err });
      throw adminError(err);
    });
    // The value is used for its keyed id (or fingerprint) here and nowhere else: never stored, logged or shown.
    if (!found.masked) return { ids: [deps.credentialIds('secret', found.secret)], masked: false };
    return { ids: (await deps.masks?.credentialsOf(found.secret)) ?? [], masked: true };
  }

  /** The live sessions of every principal named, each with the short id of its credential. */
  async function sessionsOf(ids: readonly string[]) {
    const lists = await Promise.all(ids.map(async (id) => ({ id, sessions: await deps.sessions.list(id) })));
    return lists.filter((l) => l.sessions.length > 0);
  }

  const shown = (s: ListedSession, credential?: string) => ({
    ...listedView(s),
    // Tells the sessions of secrets that share a masked form apart: a keyed id's first characters, as logs show it.
    ...(credential !== undefined && { credential: credential.slice(0, 8) }),
  });

  // POST, not GET: a secret names its principal, and a secret goes in a body, never in a URL.
  routes.post('/sessions/list', json, async (req: Request, res: Response) => {
    const named = parsePrincipalBody(req.body);
    await asOperator(req);
    const { ids, masked } = await principalsOf(req, named);
    const live = await sessionsOf(ids);
    res.set('Cache-Control', 'no-store').json({
      sessions: live.flatMap((l) => l.sessions.map((s) => shown(s, masked ? l.id : undefined))),
      ...(named.kind === 'alias' && { match: masked ? 'masked' : 'exact', credentials: live.length }),
    });
  });

  // The operator's switch: every session of the principal, and its logins in flight, through the lifecycle.
  routes.post('/sessions/end', json, async (req: Request, res: Response) => {
    const named = parsePrincipalBody(req.body);
    const operator = await asOperator(req);
    const { ids, masked } = await principalsOf(req, named);
    let targets = ids;
    if (masked && !(named.kind === 'alias' && named.allMatching)) {
      // A masked form shared by sessions of two secrets could name someone else's: not without being told to.
      // Otherwise only the one secret with live sessions, or the only one on record (its logins in flight).
      const live = await sessionsOf(ids);
      if (live.length > 1) throw new AppError('alias_ambiguous');
      targets = live.length === 1 ? [live[0]!.id] : ids.length === 1 ? ids : [];
    }
    const by = { operator: deps.operatorName(operator) };
    let ended = 0;
    for (const id of targets) ended += await deps.sessions.endAll(id, 'operator', by);
    res.set('Cache-Control', 'no-store').json({ ended });
  });

  return routes.router;
}
