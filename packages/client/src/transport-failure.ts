/**
 * How a call to a TigerGraph server failed below HTTP, decided once for every caller (the relay, token
 * calls, admin calls) and on `err.code` only: undici's message texts change between releases.
 * - timeout: no answer in time (connect, headers or body), or our own deadline aborted the call. A
 *   browser that leaves is told apart by the relay before it asks here.
 * - protocol: the server answered, but not with usable HTTP (undici's parser errors carry an HPE_ code
 *   or none at all), or the failure has no code to go by.
 * - unavailable: any other code, which names why no exchange was possible: refused, reset, dropped
 *   (UND_ERR_SOCKET), name lookup, TLS verification (SELF_SIGNED_CERT_IN_CHAIN, CERT_HAS_EXPIRED, …).
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
const PROTOCOL_CODES = new Set([
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'UND_ERR_RES_EXCEEDED_MAX_SIZE',
  'UND_ERR_INFO',
  'UND_ERR_NOT_SUPPORTED',
]);

export function classifyTransportFailure(err: unknown): TransportFailure {
  const code = transportErrorCode(err);
  if (code === undefined || code.startsWith('HPE_') || PROTOCOL_CODES.has(code)) return 'protocol';
  return TIMEOUT_CODES.has(code) ? 'timeout' : 'unavailable';
}

/** The error's `code`, else that of its cause or of the first member of an AggregateError (Happy Eyeballs). */
export function transportErrorCode(err: unknown, depth = 0): string | undefined {
  if (typeof err !== 'object' || err === null || depth > 3) return undefined;
  const { code, cause, errors } = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  if (Array.isArray(errors) && errors.length > 0) return transportErrorCode(errors[0], depth + 1);
  return transportErrorCode(cause, depth + 1);
}
