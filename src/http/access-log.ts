import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../observability/logger.js';
import { requestIdOf } from './request-id.js';

/**
 * One line per request when it finishes or the client goes away. Only the method, the route pattern
 * (low cardinality, and no ids or query strings that might carry secrets), status, duration and size:
 * never headers or bodies.
 */
export function accessLog(deps: { logger: Logger }): RequestHandler {
  const { logger } = deps;
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const bytes = countBodyBytes(res);
    let done = false;
    const finish = (aborted: boolean) => {
      if (done) return;
      done = true;
      logger.info(
        {
          requestId: requestIdOf(res),
          method: req.method,
          route: routeOf(req),
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
    next();
  };
}

/** The matched pattern (e.g. `/auth/login`, `/api/*splat`) when a route handled it, else the bare path. */
function routeOf(req: Request): string {
  const pattern: unknown = req.route?.path;
  if (typeof pattern === 'string') return `${req.baseUrl}${pattern}`;
  return req.originalUrl.split('?')[0] ?? '/';
}

/** Counts body bytes as written, since streamed (relayed) responses carry no Content-Length. */
function countBodyBytes(res: Response): () => number {
  let total = 0;
  const add = (chunk: unknown, encoding: unknown) => {
    if (typeof chunk === 'string') total += Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    else if (chunk instanceof Uint8Array) total += chunk.byteLength;
  };
  const write = res.write;
  const end = res.end;
  res.write = function (this: Response, chunk: unknown, ...rest: unknown[]) {
    add(chunk, rest[0]);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as Response['write'];
  res.end = function (this: Response, chunk?: unknown, ...rest: unknown[]) {
    if (typeof chunk !== 'function') add(chunk, rest[0]);
    return (end as (...args: unknown[]) => Response).call(this, chunk, ...rest);
  } as Response['end'];
  return () => total;
}
