import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../observability/logger.js';
import type { RequestContext } from './context.js';
import type { Step } from './step.js';

/**
 * One line per request when it finishes or the client goes away. Only the method, the route pattern
 * (low cardinality, and no ids or query strings that might carry secrets), status, duration and size:
 * never headers or bodies. The pattern is the one a handler named in the context (routes record theirs,
 * see routes/routing.ts), else the path without its query.
 */
export function logAccess(logger: Logger): Step {
  return (req, res, ctx) => {
    trackAccess(logger, req, res, ctx);
  };
}

function trackAccess(logger: Logger, req: IncomingMessage, res: ServerResponse, ctx: RequestContext): void {
  const started = process.hrtime.bigint();
  const bytes = countBodyBytes(res);
  let done = false;
  const finish = (aborted: boolean) => {
    if (done) return;
    done = true;
    logger.info(
      {
        requestId: ctx.requestId,
        method: req.method,
        route: ctx.route ?? ctx.path,
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
