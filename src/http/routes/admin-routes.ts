import { type Request, type Response, type Router } from 'express';
import { mapAdminError } from '../../admin/admin-errors.js';
import { checkGraphAccess } from '../../admin/graph-access.js';
import { AppError, isAppError } from '../../errors.js';
import { maskSecret, type AdminCredentials } from '@tigergraph-bff/client';
import type { AdminSurface } from '../../admin/admin-parts.js';
import { ADMIN_CHALLENGE, basicCredentials } from '../route-helpers/basic-credentials.js';
import { strictRoutes } from '../route-helpers/routing.js';
import { contextOf } from '../pipeline/context.js';
import { outcomeOf, type GuessLimiter } from '../limits/guess-limiter.js';
import { parseAliasPath, parseCreateSecret, parseGraphQuery } from '../schemas/admin.js';
import { jsonBody } from '../schemas/json-body.js';
import type { Audit } from '../../observability/audit.js';

/** What /admin needs: built by src/admin/admin-parts.ts when ADMIN_ROUTES is on. */
export type AdminRoutesDeps = AdminSurface & {
  /** The audit trail: secret.created and secret.dropped by an admin. */
  audit?: Audit;
};

/** Admin-server errors as AppErrors; a rejected login also carries the basic-auth challenge. */
function adminError(err: unknown): unknown {
  const mapped = mapAdminError(err);
  if (isAppError(mapped) && mapped.status === 401) {
    return new AppError(mapped.code, mapped.message, { cause: mapped.cause, headers: ADMIN_CHALLENGE });
  }
  return mapped;
}

/**
 * `/admin/secrets`: list (masked), create (value shown once), drop, as the caller. The caller's basic
 * credentials go straight to the admin server for this request and are never stored or logged; the
 * CSRF guard in front of the app covers the state-changing calls. Wrong credentials count against the
 * same guess limits as password login (the same admin-server passwords), so they cannot be tried at speed.
 */
export function adminRoutes(deps: AdminRoutesDeps & { guesses: GuessLimiter }): Router {
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
    try {
      if (graph !== null) await checkGraphAccess(secrets.gsql, creds, graph);
      const result = await work();
      await ticket.settle('accepted');
      return result;
    } catch (err) {
      const mapped = adminError(err);
      await ticket.settle(outcomeOf(mapped));
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

  return routes.router;
}
