import type { IncomingMessage, ServerResponse } from 'node:http';
import { flatLineLogger, type FlatLine, type Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { Histogram } from 'prom-client';
import type { TraceSpan } from '../../observability/tracing.js';
import type { DescribePrincipal, Principal } from '../session/principal.js';
import { API_MOUNT, type RequestContext } from './context.js';
import type { Step } from './step.js';

export interface AccessLogDeps {
  logger: Logger;
  /** Observes tgbff_http_request_duration_seconds in the same finish hook as the line. */
  metrics?: Metrics;
  /** Who a logged-in request came from (session/principal.ts); without it lines name nobody. */
  describe?: DescribePrincipal;
}

/**
 * One line per request when it finishes or the client goes away. Only the method, the route pattern
 * (low cardinality, and no ids or query strings that might carry secrets), status, duration and size:
 * never headers or bodies, but for a client's own X-Request-Id, bounded and escaped (`clientRequestId`). The pattern is the one a handler named in the context (routes record theirs,
 * see routes/routing.ts), else the path without its query. A request that acted as a session (passed the
 * gate, logged in or out) names its principal: login kind, user, graph, rule and a keyed hash of the session id
 * (never the id); a relayed installed-query call names the query.
 */
export function logAccess(deps: AccessLogDeps): Step {
  const observe = deps.metrics ? requestHistogram(deps.metrics.httpDuration) : undefined;
  // Every field of the line is a string, number or boolean, so the top-level censor is all that applies.
  const lines = flatLineLogger(deps.logger);
  return (req, res, ctx) => {
    trackAccess(lines, deps.describe, observe, req, res, ctx);
  };
}

/** The methods the request histogram names; any other token a client sends counts as `other`. */
export const HTTP_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

type Observe = (
  route: string | undefined,
  method: string | undefined,
  status: number,
  aborted: boolean,
  seconds: number,
) => void;

/**
 * The histogram's children, looked up once per label set (routes × methods × classes, a few hundred at
 * most) instead of prom-client hashing the label object on every request: by route, then method (both
 * strings the service chose, so the maps hash them once), then the status class as an array index (0 for
 * an abort), with no key text built per request.
 */
function requestHistogram(histogram: Histogram<'route' | 'method' | 'status_class'>): Observe {
  type Child = { observe(value: number): void };
  const byRoute = new Map<string, Map<string, Child[]>>();
  return (route, method, status, aborted, seconds) => {
    const r = route ?? 'other';
    const m = method !== undefined && HTTP_METHODS.has(method) ? method : 'other';
    const c = aborted ? 0 : Math.floor(status / 100);
    let byMethod = byRoute.get(r);
    if (byMethod === undefined) byRoute.set(r, (byMethod = new Map<string, Child[]>()));
    let children = byMethod.get(m);
    if (children === undefined) byMethod.set(m, (children = []));
    let child = children[c];
    if (child === undefined)
      child = children[c] = histogram.labels({ route: r, method: m, status_class: c === 0 ? 'aborted' : `${c}xx` });
    child.observe(seconds);
  };
}

const QUERY_PREFIX = `${API_MOUNT}/query/`;
/** What a query name may look like in a line: TigerGraph's identifiers, bounded. Anything else is not logged. */
const QUERY_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** The query of `/api/query/<graph>/<name>`, when the name is an identifier; else undefined. */
export function queryNameOf(path: string): string | undefined {
  if (!path.startsWith(QUERY_PREFIX)) return undefined;
  const graphEnd = path.indexOf('/', QUERY_PREFIX.length);
  if (graphEnd < 0) return undefined;
  const nameEnd = path.indexOf('/', graphEnd + 1);
  const name = path.slice(graphEnd + 1, nameEnd < 0 ? path.length : nameEnd);
  return QUERY_NAME.test(name) ? name : undefined;
}

function trackAccess(
  lines: ReturnType<typeof flatLineLogger>,
  describe: DescribePrincipal | undefined,
  observe: Observe | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: RequestContext,
): void {
  const started = process.hrtime.bigint();
  const bytes = countBodyBytes(res);
  let done = false;
  const finish = (aborted: boolean) => {
    if (done) return;
    done = true;
    const elapsed = Number(process.hrtime.bigint() - started);
    observe?.(ctx.route, req.method, res.statusCode, aborted, elapsed / 1e9);
    const acted = describe && ctx.session.principal();
    const principal = acted && describe(acted.sid, acted.tg);
    const query = ctx.lane === 'api' ? queryNameOf(ctx.path) : undefined;
    const span = ctx.span;
    if (span !== undefined) endRequestSpan(span, req, res, ctx, aborted, principal, query);
    // One shape for every line (absent fields undefined, which pino leaves out): no object spreads, whose
    // varying shapes made the line's serialisation several times slower.
    const line: FlatLine = {
      requestId: ctx.requestId,
      // What the client sent as its own id (never the id, unless a trusted proxy passed it on): request-id.ts.
      clientRequestId: ctx.clientRequestId,
      method: req.method,
      route: ctx.route ?? ctx.path,
      status: res.statusCode,
      // The error code the service answered with (docs/api.md), so a refused request's line says why.
      error: ctx.errorCode,
      durationMs: Math.round(elapsed / 1e4) / 100,
      bytes: bytes(),
      aborted: aborted || undefined,
      login: principal?.login,
      user: principal?.user,
      graph: principal?.graph,
      // The credential-map rule that admitted an SSO user, beside the subject (undefined for every other login).
      rule: principal?.rule,
      session: principal?.session,
      query,
      traceId: span?.traceId,
    };
    lines.info(line, 'request');
  };
  res.once('finish', () => finish(false));
  res.once('close', () => finish(!res.writableFinished));
}

/**
 * The request span gets what the line has, as attributes: the route pattern (never the path, which may
 * carry ids), method, status, the principal's login kind, graph, session hash and user (hashed or not, as
 * in the line), the query name. Never a header, cookie, query string or body. A 5xx or an abort fails it.
 */
function endRequestSpan(
  span: TraceSpan,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: RequestContext,
  aborted: boolean,
  principal: Principal | undefined,
  query: string | undefined,
): void {
  const method = req.method !== undefined && HTTP_METHODS.has(req.method) ? req.method : 'other';
  const route = ctx.route ?? 'other';
  span.rename(`${method} ${route}`);
  span.set('http.request.method', method);
  span.set('http.route', route);
  span.set('http.response.status_code', res.statusCode);
  span.set('tgbff.request_id', ctx.requestId);
  if (principal !== undefined) {
    span.set('tgbff.login', principal.login);
    span.set('tgbff.session', principal.session);
    if (principal.user !== undefined) span.set('enduser.id', principal.user);
    if (principal.graph !== undefined) span.set('tgbff.graph', principal.graph);
  }
  if (query !== undefined) span.set('tgbff.query', query);
  if (aborted) span.fail('aborted');
  else if (res.statusCode >= 500) span.fail(String(res.statusCode));
  span.end();
}

/** Counts body bytes as written, since streamed (relayed) responses carry no Content-Length. */
function countBodyBytes(res: ServerResponse): () => number {
  let total = 0;
  const add = (chunk: unknown, encoding: unknown) => {
    if (typeof chunk === 'string')
      total += Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    else if (chunk instanceof Uint8Array) total += chunk.byteLength;
  };
  const write = res.write;
  const end = res.end;
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    add(chunk, rest[0]);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as ServerResponse['write'];
  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    if (typeof chunk !== 'function') add(chunk, rest[0]);
    return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as ServerResponse['end'];
  return () => total;
}
