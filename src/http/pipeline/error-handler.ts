import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, ERROR_CODES, isAppError, type ErrorCode } from '../../errors.js';
import type { DependencyFaults } from '../../observability/dependency-faults.js';
import type { Logger } from '../../observability/logger.js';
import { contextOf } from './context.js';

/** body-parser and raw-body errors carry a stable `type`; map on it, never on message text. */
const BODY_ERRORS: Record<string, [ErrorCode, string]> = {
  'entity.parse.failed': ['invalid_request', 'Request body is not valid JSON'],
  'entity.too.large': ['payload_too_large', 'Request body is too large'],
  'entity.verify.failed': ['invalid_request', 'Request body was rejected'],
  'entity.invalid.utf8': ['invalid_request', 'body: is not valid UTF-8'],
  'request.aborted': ['request_aborted', 'Request was aborted'],
  'request.size.invalid': ['invalid_request', 'Request body length does not match Content-Length'],
  'encoding.unsupported': ['unsupported_encoding', 'Content encoding is not supported'],
  'charset.unsupported': ['unsupported_charset', 'Request charset is not supported'],
  'parameters.too.many': ['payload_too_large', 'Too many parameters'],
};

/** Other client errors raised by Express or its helpers (http-errors), by their status in the vocabulary. */
const STATUS_ERRORS = new Map<number, ErrorCode>(
  (['invalid_request', 'not_found', 'method_not_allowed', 'payload_too_large', 'unsupported_media_type'] as const).map(
    (code) => [ERROR_CODES[code].status, code],
  ),
);

function toAppError(err: unknown): AppError {
  if (isAppError(err)) return err;
  const e = (typeof err === 'object' && err !== null ? err : {}) as {
    type?: unknown;
    status?: unknown;
    statusCode?: unknown;
  };
  const known = typeof e.type === 'string' ? BODY_ERRORS[e.type] : undefined;
  if (known) return new AppError(known[0], known[1], { cause: err });
  const status = typeof e.status === 'number' ? e.status : e.statusCode;
  const byStatus = typeof status === 'number' ? STATUS_ERRORS.get(status) : undefined;
  if (byStatus) return new AppError(byStatus, { cause: err });
  return new AppError('internal_error', { cause: err });
}

/** Where answered errors are logged: the logger, and the dependency faults (one line per cause per interval). */
export interface ErrorLog {
  logger: Logger;
  faults?: DependencyFaults;
}

/**
 * The one error middleware, registered last. Clients get `{"error":{"code","message"}}` only; causes,
 * stacks and detail go to the log with the request id.
 */
export function errorHandler(log: ErrorLog): ErrorRequestHandler {
  return (err, req, res, _next) =>
    answerError(log, err, req, res, contextOf(req) ?? { requestId: undefined, path: req.path });
}

/** What errorHandler does, on plain node objects: the pipeline's steps and the /api lane answer errors with it. */
export function answerError(
  log: ErrorLog,
  err: unknown,
  req: IncomingMessage,
  res: ServerResponse,
  where: { requestId: string | undefined; path: string; errorCode?: string | undefined },
): void {
  const appError = toAppError(err);
  // The access line names the code of every refused request (its context is `where` when there is one).
  where.errorCode = appError.code;
  const { logger } = log;
  const context = { requestId: where.requestId, method: req.method, path: where.path, code: appError.code };
  if (res.headersSent) {
    // A half-sent response cannot be turned into an error; cutting the connection tells the client it failed.
    logger.error({ ...context, err }, 'error after response started');
    req.socket.destroy();
    return;
  }
  // A dependency's expected fault (refused, timed out, TLS, DNS) is one line per cause per interval naming the
  // setting, and the access line has the code; anything else at 5xx is a bug, logged with its stack.
  if (appError.status >= 500) {
    const dependency = appError.dependency;
    const reported =
      dependency !== undefined &&
      log.faults?.report(dependency, appError.cause, {
        requestId: where.requestId,
        ...(appError.code === 'upstream_timeout' && { kind: 'timeout' as const }),
      }) === true;
    if (!reported) logger.error({ ...context, err: appError.cause ?? err }, appError.message);
  } else logger.debug({ ...context, status: appError.status }, appError.message);
  send(req, res, appError);
}

export const notFoundHandler: RequestHandler = (_req, _res, next) => {
  next(new AppError('not_found', 'Not found'));
};

function send(req: IncomingMessage, res: ServerResponse, error: AppError): void {
  const body = JSON.stringify({ error: { code: error.code, message: error.message } });
  res.statusCode = error.status;
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(req.method === 'HEAD' ? undefined : body);
}
