import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../../errors.js';
import type { DependencyFaults } from '../../observability/dependency-faults.js';
import type { Logger } from '../../observability/logger.js';
import type { Relay, RelayAuth } from '../../relay/relay.js';
import { endsSession } from '../../tokens/map-upstream-error.js';
import { API_MOUNT, type RequestContext } from '../pipeline/context.js';
import { answerError } from '../pipeline/error-handler.js';
import type { CredentialIds } from '../../crypto/credential-id.js';
import { credentialOf, kindOf } from '../../sessions/session-data.js';
import type { SessionLifecycle } from '../../sessions/lifecycle.js';
import type { SessionConcurrency } from '../limits/session-concurrency.js';
import type { UserQuota } from '../../quota/user-quota.js';
import { admitAudited } from '../../quota/admit-audited.js';

const ROUTE = `${API_MOUNT}/*`;

import type { Audit } from '../../observability/audit.js';

export interface ApiLaneDeps {
  logger: Logger;
  /** A dependency's fault behind an error answer, as one line naming its setting (error-handler.ts). */
  dependencies?: DependencyFaults;
  /** Which broker keeps a session's token, and how a session the upstream refused ends (src/sessions/). */
  lifecycle: SessionLifecycle;
  relay: Relay;
  concurrency: SessionConcurrency;
  /** The same across all sessions of one credential (secret, user, IdP subject) on this instance. */
  credentialConcurrency: SessionConcurrency;
  credentialIds: CredentialIds;
  /** Per-principal quotas across all instances (QUOTA_*); absent when none is set. */
  quota?: UserQuota;
  /** The audit trail: a quota refusal (a re-mint is the token broker's event). */
  audit?: Audit;
  /** RELAY_COALESCE: pass the relay who asks (principal, login kind, token scope) so identical reads share a call. */
  coalescing?: boolean;
}

/** The /api handler, after the pipeline: session, per-session and per-credential concurrency, token, relay. */
export type ApiLane = (req: IncomingMessage, res: ServerResponse, ctx: RequestContext) => void;

const notAuthenticated = () => new AppError('not_authenticated', 'Not logged in');

/**
 * `/api/*`, the relay, served without Express: every relayed request is hot, and the profile showed
 * Express's request set-up, router and per-layer calls as the largest cost the BFF adds over a bare relay.
 * The pipeline has run (same steps as for the app); here the per-session concurrency limit comes before
 * the session load, so a session over its limit costs no Redis round trip, then the one gate, then the
 * per-credential limit (the session's credential is in its record), then the relay with the session's
 * token source. Errors are answered as the app's error handler answers them.
 */
export function createApiLane(deps: ApiLaneDeps): ApiLane {
  const { logger, lifecycle, relay, concurrency, credentialConcurrency } = deps;
  const errorLog = { logger, ...(deps.dependencies && { faults: deps.dependencies }) };

  const relayFor = async (req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> => {
    const sid = ctx.session.sid();
    if (sid === null) throw notAuthenticated();
    concurrency.enter(sid);
    let closed = false;
    let credential: string | undefined;
    let endQuota: (() => void) | undefined;
    res.once('close', () => {
      closed = true;
      concurrency.leave(sid);
      if (credential !== undefined) credentialConcurrency.leave(credential);
      endQuota?.();
    });
    const live = await ctx.session.live();
    const id = credentialOf(deps.credentialIds, live.tg, live.credential);
    credentialConcurrency.enter(id);
    // A client gone while the session loaded has already left: its count must not outlive it.
    if (closed) credentialConcurrency.leave(id);
    else credential = id;
    if (deps.quota) {
      const end = await admitAudited(deps.quota, deps.audit, id, ctx.url);
      if (closed) end();
      else endQuota = end;
    }
    const strategy = lifecycle.strategyOf(live.tg);
    const source = strategy.broker;
    // An SSO session without SSO configured (settings changed since login) has nothing to renew with.
    if (source === undefined)
      throw new AppError('session_expired', 'Single sign-on is not configured any more; log in again');
    // A renewal refused for good (an IdP refusing the refresh token) ends the session here and now.
    const ending = (err: unknown): never => {
      if (strategy.refusalEnds && endsSession(err)) {
        ctx.session.ending();
        void lifecycle.end(live.sid, 'idp_refused', live.tg).catch(() => undefined);
      }
      throw err;
    };
    // Every token of the session is for the graph its login named (a 4.1+ refresh is a mint); a
    // credential-map session names its rule beside it (its scope), to use the rule's shared token.
    const graph = strategy.scope ? strategy.scope(live.tg) : (live.tg.graph ?? undefined);
    const auth: RelayAuth = {
      token: () => source.token(live.sid, live.credential, live.remainingMs, graph).then((s) => s.token, ending),
      rejected: (token) =>
        source
          .replaceRejected(live.sid, live.credential, token, live.remainingMs, graph)
          .then((s) => s?.token ?? null, ending),
    };
    await relay.handle(req, res, {
      auth,
      requestId: ctx.requestId,
      url: ctx.url,
      forwarded: ctx.forwarded,
      arrivedAt: ctx.arrivedAt,
      owner: id,
      // Never across principals; within one, only among sessions whose tokens are for the same graph (and rule).
      ...(deps.coalescing === true && { shareAs: `${id}\n${kindOf(live.tg)}\n${graph ?? ''}` }),
    });
  };

  return (req, res, ctx) => {
    ctx.route = ROUTE;
    relayFor(req, res, ctx).catch((err: unknown) => answerError(errorLog, err, req, res, ctx));
  };
}
