import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import type { Logger } from '../../observability/logger.js';
import { requestIdOf } from './request-id.js';

/**
 * One line per request when it finishes or the client goes away. Only the method, the route pattern
 * (low cardinality, and no ids or query strings that might carry secrets), status, duration and size:
 * never headers or bodies.
 */
export function accessLog(deps: { logger: Logger }): RequestHandler {
  const { logger } = deps;
  return (req, res, next) => {
    const handledAt = trackRoute(req);
    trackAccess(logger, req, res, () => requestIdOf(res), () => handledAt() ?? req.originalUrl.split('?')[0] ?? '/');
    next();
  };
}

/**
 * Logs the access line of one request when it finishes or the client goes away. Shared by the Express
 * middleware and the /api lane, which has no router and names its route itself.
 */
export function trackAccess(
  logger: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  requestId: () => string | undefined,
  route: () => string,
): void {
  const started = process.hrtime.bigint();
  const bytes = countBodyBytes(res);
  let done = false;
  const finish = (aborted: boolean) => {
    if (done) return;
    done = true;
    logger.info(
      {
        requestId: requestId(),
        method: req.method,
        route: route(),
        status: res.statusCode,
        durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
        bytes: bytes(),
        ...(aborted && { aborted: true }),
      },
      'request',
    );
  };
  res.once('finish', () => finish(false));
  res.once('close', () => finish(!res.writableFinished));
}

/**
 * Where the request was handled: the full route pattern (e.g. `/auth/login`) when a route matched, else
 * `<mount>/*` for the deepest mount it entered (e.g. `/api/*` for the relay). Both are recorded as the
 * router assigns them, because a mounted router puts `baseUrl` back when an error leaves it, so after
 * the error handler answered, `baseUrl + route.path` would have lost the mount path.
 */
function trackRoute(req: Request): () => string | undefined {
  let baseUrl: unknown = req.baseUrl;
  let route: unknown = req.route;
  let pattern: string | undefined;
  let mount = '';
  Object.defineProperty(req, 'baseUrl', {
    configurable: true,
    enumerable: true,
    get: () => baseUrl,
    set(value: unknown) {
      baseUrl = value;
      if (typeof value === 'string' && value.length > mount.length) mount = value;
    },
  });
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => route,
    set(value: unknown) {
      route = value;
      const path = (value as { path?: unknown } | undefined)?.path;
      if (typeof path === 'string') pattern = `${typeof baseUrl === 'string' ? baseUrl : ''}${path}`;
    },
  });
  return () => pattern ?? (mount ? `${mount}/*` : undefined);
}

/** Counts body bytes as written, since streamed (relayed) responses carry no Content-Length. */
function countBodyBytes(res: ServerResponse): () => number {
  let total = 0;
  const add = (chunk: unknown, encoding: unknown) => {
    if (typeof chunk === 'string') total += Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
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
