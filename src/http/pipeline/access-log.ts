import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../observability/logger.js';
import type { DescribePrincipal } from '../session/principal.js';
import { API_MOUNT, type RequestContext } from './context.js';
import type { Step } from './step.js';

export interface AccessLogDeps {
  logger: Logger;
  /** Who a logged-in request came from (session/principal.ts); without it lines name nobody. */
  describe?: DescribePrincipal;
}

/**
 * One line per request when it finishes or the client goes away. Only the method, the route pattern
 * (low cardinality, and no ids or query strings that might carry secrets), status, duration and size:
 * never headers or bodies. The pattern is the one a handler named in the context (routes record theirs,
 * see routes/routing.ts), else the path without its query. A request that acted as a session (passed the
 * gate, logged in or out) names its principal: login kind, user, graph and a keyed hash of the session id
 * (never the id); a relayed installed-query call names the query.
 */
export function logAccess(deps: AccessLogDeps): Step {
  return (req, res, ctx) => {
    trackAccess(deps, req, res, ctx);
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

function trackAccess(deps: AccessLogDeps, req: IncomingMessage, res: ServerResponse, ctx: RequestContext): void {
  const { logger, describe } = deps;
  const started = process.hrtime.bigint();
  const bytes = countBodyBytes(res);
  let done = false;
  const finish = (aborted: boolean) => {
    if (done) return;
    done = true;
    const acted = describe && ctx.session.principal();
    const query = ctx.lane === 'api' ? queryNameOf(ctx.path) : undefined;
    logger.info(
      {
        requestId: ctx.requestId,
        method: req.method,
        route: ctx.route ?? ctx.path,
        status: res.statusCode,
        durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
        bytes: bytes(),
        ...(aborted && { aborted: true }),
        ...(acted && describe(acted.sid, acted.tg)),
        ...(query !== undefined && { query }),
      },
      'request',
    );
  };
  res.once('finish', () => finish(false));
  res.once('close', () => finish(!res.writableFinished));
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
