/**
 * The service's error vocabulary (src/errors/codes.ts in tigergraph-bff), as a list a browser can carry
 * without the server's code. test/unit/browser/error-codes.test.ts keeps it equal to the service's table,
 * name for name and status for status, so a code added there fails the test until it is added here.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_path: 400,
  graph_not_found: 400,
  request_aborted: 400,
  not_authenticated: 401,
  invalid_credentials: 401,
  session_expired: 401,
  session_ended: 401,
  token_rejected: 401,
  sso_failed: 400,
  csrf_rejected: 403,
  https_required: 403,
  path_not_allowed: 403,
  sso_not_permitted: 403,
  sso_claims_invalid: 403,
  graph_not_permitted: 403,
  forbidden: 403,
  not_found: 404,
  secret_not_found: 404,
  session_not_found: 404,
  method_not_allowed: 405,
  secret_exists: 409,
  alias_ambiguous: 409,
  payload_too_large: 413,
  unsupported_encoding: 415,
  unsupported_charset: 415,
  unsupported_media_type: 415,
  rate_limited: 429,
  quota_exceeded: 429,
  too_many_requests: 429,
  internal_error: 500,
  upstream_error: 502,
  upstream_unavailable: 502,
  response_too_large: 502,
  upstream_auth_disabled: 502,
  mapped_credential_refused: 502,
  overloaded: 503,
  store_unavailable: 503,
  idp_unavailable: 503,
  token_unavailable: 503,
  upstream_timeout: 504,
} as const;

/** A code the service answers with, in `{"error":{"code","message"}}`. */
export type ServiceErrorCode = keyof typeof ERROR_STATUS;

/**
 * Besides the service's codes: `network_error` (no answer: offline, DNS, TLS, CORS refused) and
 * `unexpected_response` (an answer that is not the service's JSON: a proxy's HTML page, Node's plain 408).
 */
export type ErrorCode = ServiceErrorCode | 'network_error' | 'unexpected_response';

export const isServiceErrorCode = (value: unknown): value is ServiceErrorCode =>
  typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_STATUS, value);

/** 401 codes after which only a new login helps; each fires the client's `sessionend` event. */
export const SESSION_ENDING_CODES: readonly ServiceErrorCode[] = [
  'not_authenticated',
  'session_expired',
  'session_ended',
  'token_rejected',
];
