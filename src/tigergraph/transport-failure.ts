/**
 * How a call to a TigerGraph server failed below HTTP, decided once for every caller (the relay, token
 * calls, admin calls) and on `err.code` only: undici's message texts change between releases.
 * - timeout: no answer in time (connect, headers or body), or our own deadline aborted the call. A
 *   browser that leaves is told apart by the relay before it asks here.
 * - unavailable: the server could not be reached or dropped the connection without an answer.
 * - protocol: it answered, but not with usable HTTP (HTTPParserError carries no code), or failed in a
 *   way we have no code for.
 */
export type TransportFailure = 'timeout' | 'unavailable' | 'protocol';

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
  'UND_ERR_ABORTED',
  'ABORT_ERR',
]);
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

export function classifyTransportFailure(err: unknown): TransportFailure {
  const code = transportErrorCode(err);
  if (code !== undefined && TIMEOUT_CODES.has(code)) return 'timeout';
  if (code !== undefined && UNAVAILABLE_CODES.has(code)) return 'unavailable';
  return 'protocol';
}

/** The error's `code`, else that of its cause or of the first member of an AggregateError (Happy Eyeballs). */
export function transportErrorCode(err: unknown, depth = 0): string | undefined {
  if (typeof err !== 'object' || err === null || depth > 3) return undefined;
  const { code, cause, errors } = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  if (Array.isArray(errors) && errors.length > 0) return transportErrorCode(errors[0], depth + 1);
  return transportErrorCode(cause, depth + 1);
}
