import { AppError } from '../errors.js';

/** Same labels as metrics.upstreamErrors. */
export type UpstreamErrorKind = 'timeout' | 'unavailable' | 'rejected' | 'protocol';

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);

/** Classifies on `code` only (also of a cause or the first of an AggregateError, as Happy Eyeballs throws). */
export function classifyUpstreamError(err: unknown): UpstreamErrorKind {
  const code = errorCode(err);
  if (code !== undefined && TIMEOUT_CODES.has(code)) return 'timeout';
  if (code !== undefined && UNAVAILABLE_CODES.has(code)) return 'unavailable';
  return 'protocol';
}

export function upstreamAppError(kind: UpstreamErrorKind, cause: unknown): AppError {
  switch (kind) {
    case 'timeout':
      return new AppError(504, 'upstream_timeout', 'The data server did not answer in time', { cause });
    case 'rejected':
      return new AppError(401, 'token_rejected', 'The data server rejected the access token', { cause });
    case 'unavailable':
      return new AppError(502, 'upstream_unavailable', 'The data server is unavailable', { cause });
    case 'protocol':
      return new AppError(502, 'upstream_unavailable', 'The data server gave an unusable answer', { cause });
  }
}

/** What a response pipeline reports when the browser, not the data server, ended the exchange. */
const CLIENT_GONE_CODES = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'UND_ERR_ABORTED', 'ABORT_ERR']);

export function endedByClient(err: unknown): boolean {
  const code = errorCode(err);
  return code !== undefined && CLIENT_GONE_CODES.has(code);
}

function errorCode(err: unknown, depth = 0): string | undefined {
  if (typeof err !== 'object' || err === null || depth > 3) return undefined;
  const { code, cause, errors } = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  if (Array.isArray(errors) && errors.length > 0) return errorCode(errors[0], depth + 1);
  return errorCode(cause, depth + 1);
}
