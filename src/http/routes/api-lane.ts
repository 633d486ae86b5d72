import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { ForwardedFor } from '../../relay/header-policy.js';
import type { Relay, RelayAuth } from '../../relay/relay.js';
import type { TokenBroker } from '../../tokens/token-broker.js';
import { trackAccess } from '../pipeline/access-log.js';
import { answerError } from '../pipeline/error-handler.js';
import { forwardedFor } from '../pipeline/forwarded.js';
import { ownOrigin, type TrustProxySetting } from '../pipeline/own-origin.js';
import { REQUEST_ID_HEADER, chooseRequestId } from '../pipeline/request-id.js';
import type { SessionGate } from '../session/require-session.js';
import type { SecurityHeaderSets } from '../pipeline/security.js';
import type { SessionConcurrency } from './session-concurrency.js';
import type { SessionLookup } from '../session/session-lookup.js';

export const API_MOUNT = '/api';
const ROUTE = `${API_MOUNT}/*`;

export interface ApiLaneDeps {
  logger: Logger;
  metrics: Metrics;
  securityHeaders: SecurityHeaderSets;
  /** Answers a CORS preflight (true) or adds the CORS headers and lets the request go on. */
  cors: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** The CSRF check; `own` gives this service's origin as the request reached it. */
  csrf: (req: IncomingMessage, path: string, own: () => string | null) => AppError | null;
  trustProxy: TrustProxySetting;
  sessions: SessionLookup;
  gate: SessionGate;
  broker: TokenBroker;
  relay: Relay;
  concurrency: SessionConcurrency;
}

export interface ApiLane {
  /** Whether the request target is under /api (case-sensitive, as the relay's path guard reads it). */
  matches(url: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse): void;
}

const notAuthenticated = () => new AppError(401, 'not_authenticated', 'Not logged in');

/**
 * `/api/*`, the relay, served without Express: every relayed request is hot, and the profile showed
 * Express's request set-up, router and per-layer calls as the largest cost the BFF adds over a bare
 * relay. The steps are the app's own, in the app's order, built from the same parts: request id, access
 * line, in-flight gauge, security headers, CORS, the CSRF guard, the per-session concurrency limit, the
 * session (read-only, touch after the answer), the session gate (tombstone, absolute timeout, secret), then the relay with the session's
 * token source. Errors are answered exactly as the app's error handler answers them.
 */
export function createApiLane(deps: ApiLaneDeps): ApiLane {
  const { logger, metrics, securityHeaders, cors, csrf, sessions, gate, broker, relay, concurrency } = deps;
  const forwarded = forwardedFor(deps.trustProxy);
  const inFlightDone = () => metrics.activeRequests.dec();

  const relayFor = async (
    req: IncomingMessage,
    res: ServerResponse,
    url: string,
    requestId: string,
    seen: () => ForwardedFor,
    arrivedAt: number,
  ): Promise<void> => {
    const sid = sessions.sid(req.headers.cookie);
    if (sid === null) throw notAuthenticated();
    concurrency.enter(sid);
    res.once('close', () => concurrency.leave(sid));
    const data = await sessions.load(sid);
    if (data === null) throw notAuthenticated();
    res.once('finish', () => sessions.touch(sid, data));
    const ctx = await gate(sid, data.tg, () => sessions.destroy(sid));
    const auth: RelayAuth = {
      token: () => broker.token(ctx.sid, ctx.secret, ctx.remainingMs).then((s) => s.token),
      rejected: (token) => broker.replaceRejected(ctx.sid, ctx.secret, token, ctx.remainingMs).then((s) => s.token),
    };
    await relay.handle(req, res, { auth, requestId, url, forwarded: seen(), arrivedAt });
  };

  return {
    matches(url) {
      if (!url.startsWith(API_MOUNT)) return false;
      const next = url.charCodeAt(API_MOUNT.length);
      return Number.isNaN(next) || next === 0x2f /* / */ || next === 0x3f /* ? */;
    },
    handle(req, res) {
      const arrivedAt = performance.now();
      const url = req.url ?? API_MOUNT;
      const requestId = chooseRequestId(req.headers['x-request-id']);
      res.setHeader(REQUEST_ID_HEADER, requestId);
      trackAccess(logger, req, res, () => requestId, () => ROUTE);
      metrics.activeRequests.inc();
      res.once('close', inFlightDone);
      // Worked out once: the security headers need its scheme, the CSRF check its host, the relay all of it.
      const fwd = forwarded(req);
      const seen = () => fwd;
      for (const [name, value] of fwd.proto === 'https' ? securityHeaders.https : securityHeaders.http) res.setHeader(name, value);
      const q = url.indexOf('?');
      const path = q === -1 ? url : url.slice(0, q);
      const fail = (err: unknown) => answerError(logger, err, req, res, { requestId, path });
      try {
        if (cors(req, res)) return;
        const refused = csrf(req, path, () => ownOrigin(seen()));
        if (refused !== null) return fail(refused);
      } catch (err) {
        return fail(err);
      }
      relayFor(req, res, url, requestId, seen, arrivedAt).catch(fail);
    },
  };
}
