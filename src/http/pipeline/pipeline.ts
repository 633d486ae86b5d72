import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DependencyFaults } from '../../observability/dependency-faults.js';
import type { FaultLog } from '../../observability/fault-log.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import { RequestSession } from '../session/request-session.js';
import type { Tracing } from '../../observability/tracing.js';
import type { DescribePrincipal } from '../session/principal.js';
import type { SessionGate } from '../session/session-gate.js';
import type { SessionLookup } from '../session/session-lookup.js';
import { attachContext, laneOf, type RequestContext } from './context.js';
import { cors } from './cors.js';
import { csrfGuard } from './csrf.js';
import { answerError } from './error-handler.js';
import { forwardedFor } from './forwarded.js';
import { countInFlight } from './in-flight.js';
import { logAccess } from './access-log.js';
import type { TrustProxySetting } from './own-origin.js';
import { chooseRequestIds, echoRequestId } from './request-id.js';
import { setSecurityHeaders } from './security-headers.js';
import type { Step } from './step.js';
import type { OverloadGuard } from '../limits/overload.js';

export interface PipelineDeps {
  logger: Logger;
  metrics: Metrics;
  allowedOrigins: readonly string[];
  csrfHeader: string;
  trustProxy: TrustProxySetting;
  cookieName: string;
  cookieSecure: boolean;
  sessions: SessionLookup;
  gate: SessionGate;
  /** Names the principal of a logged-in request in its access line (session/principal.ts). */
  describe?: DescribePrincipal;
  /** OpenTelemetry: a server span per request, active while its handler runs. Absent: tracing is off. */
  tracing?: Tracing;
  /** Expected faults, one line per cause per interval (the CSRF guard's refusals among them). */
  faults?: FaultLog;
  /** A dependency's fault behind an error answer, as one line naming its setting (error-handler.ts). */
  dependencies?: DependencyFaults;
  /** OVERLOAD_*: refuses requests past the limits with 503 overloaded; absent: no overload protection. */
  overload?: OverloadGuard;
  /** Exact paths servers POST to without a browser (OIDC back-channel logout): no CSRF header asked. */
  serverToServerPosts?: readonly string[];
  /** Exact paths authenticated by a bearer alone, any method (MCP): no cookie is read there, no CSRF header asked. */
  bearerPaths?: readonly string[];
}

/** What runs before every handler: the context, then the steps; null when a step already answered. */
export interface Pipeline {
  run(req: IncomingMessage, res: ServerResponse): RequestContext | null;
  readonly tracing?: Tracing;
}

/**
 * The request path, once, for every request the public port serves (the /api lane and the Express app
 * alike). Order matters: the id and access line first so every answer carries and logs them, the security
 * headers before anything can answer, CORS before CSRF because a preflight carries no CSRF header, the
 * overload guard before the first step that can cost a session read or an upstream call.
 */
export function createPipeline(deps: PipelineDeps): Pipeline {
  const { logger } = deps;
  const errorLog = { logger, ...(deps.dependencies && { faults: deps.dependencies }) };
  const forwarded = forwardedFor(deps.trustProxy);
  const cookie = { cookieName: deps.cookieName, cookieSecure: deps.cookieSecure };
  const steps: readonly Step[] = [
    echoRequestId,
    logAccess({ logger, metrics: deps.metrics, ...(deps.describe && { describe: deps.describe }) }),
    countInFlight(deps.metrics, deps.overload?.inFlight),
    setSecurityHeaders(),
    cors(deps),
    // Before anything that reads a session or calls upstream; after CORS, so a page on an allowed origin can
    // read the 503 and its Retry-After.
    ...(deps.overload ? [deps.overload.step] : []),
    csrfGuard(deps),
  ];
  const { tracing } = deps;
  return {
    ...(tracing && { tracing }),
    run(req, res) {
      const arrivedAt = performance.now();
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const path = q === -1 ? url : url.slice(0, q);
      const seen = forwarded(req);
      const lane = laneOf(path);
      const { requestId, clientRequestId } = chooseRequestIds(req.headers['x-request-id'], seen.viaProxy);
      const ctx: RequestContext = {
        requestId,
        clientRequestId,
        arrivedAt,
        url,
        path,
        lane,
        forwarded: seen,
        route: undefined,
        errorCode: undefined,
        session: new RequestSession(req, res, deps.sessions, deps.gate, cookie, tracing, lane === 'api'),
        span: tracing?.startRequest(req.method ?? 'GET', req.headers),
      };
      try {
        for (const step of steps) if (step(req, res, ctx) === true) return null;
      } catch (err) {
        answerError(errorLog, err, req, res, ctx);
        return null;
      }
      return ctx;
    },
  };
}

/**
 * A request listener: the pipeline, then `handler` with the request's context, which Express handlers
 * behind it find with contextOf(req). (The /api lane takes it as an argument: the hot path adds no
 * property to the request.)
 */
export function servePipeline(
  pipeline: Pipeline,
  handler: (req: IncomingMessage, res: ServerResponse, ctx: RequestContext) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const ctx = pipeline.run(req, res);
    if (ctx === null) return;
    if (ctx.lane !== 'api') attachContext(req, ctx);
    if (ctx.span !== undefined && pipeline.tracing !== undefined)
      pipeline.tracing.within(ctx.span, () => handler(req, res, ctx));
    else handler(req, res, ctx);
  };
}
