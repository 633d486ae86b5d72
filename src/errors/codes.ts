/**
 * Every error code the service answers with, its one HTTP status and its public default message. This
 * table is the vocabulary: AppError takes only its keys, docs/openapi.yaml and docs/api.md's error table are
 * tested against it, so a new code is added here first or it does not compile.
 */
export const ERROR_CODES = {
  invalid_request: { status: 400, message: 'Invalid request' },
  invalid_path: { status: 400, message: 'The relay path is malformed or uses forbidden encodings' },
  graph_not_found: { status: 400, message: 'That graph does not exist, or this secret is not for it' },
  request_aborted: { status: 400, message: 'Request was aborted' },
  not_authenticated: { status: 401, message: 'Not logged in' },
  invalid_credentials: { status: 401, message: 'The credentials were not accepted' },
  session_expired: { status: 401, message: 'Session expired; log in again' },
  session_ended: { status: 401, message: 'This session was ended; log in again' },
  token_rejected: { status: 401, message: 'The data server rejected the access token' },
  sso_failed: { status: 400, message: 'Single sign-on did not complete; start the login again' },
  csrf_rejected: { status: 403, message: 'The request failed the CSRF check' },
  https_required: { status: 403, message: 'Log in over https' },
  path_not_allowed: { status: 403, message: 'This path is not relayed' },
  sso_not_permitted: { status: 403, message: 'No sign-in rule of this service admits you; ask for access' },
  sso_claims_invalid: { status: 403, message: "The identity provider's claims cannot be used" },
  graph_not_permitted: { status: 403, message: 'Your sign-in rule does not open that graph' },
  forbidden: { status: 403, message: 'The user has no privileges on that graph, or it does not exist' },
  not_found: { status: 404, message: 'Not found' },
  secret_not_found: { status: 404, message: 'No secret with that alias' },
  session_not_found: { status: 404, message: 'No session of yours has that id' },
  method_not_allowed: { status: 405, message: 'Method not allowed' },
  secret_exists: { status: 409, message: 'A secret with that alias already exists' },
  alias_ambiguous: {
    status: 409,
    message: "Sessions of more than one secret share that alias's masked value; list them, then end with allMatching",
  },
  payload_too_large: { status: 413, message: 'Request body is too large' },
  unsupported_encoding: { status: 415, message: 'Content encoding is not supported' },
  unsupported_charset: { status: 415, message: 'Request charset is not supported' },
  unsupported_media_type: { status: 415, message: 'Unsupported media type' },
  rate_limited: { status: 429, message: 'Too many failed attempts; try again later' },
  quota_exceeded: { status: 429, message: "This user's request quota is spent; try again later" },
  too_many_requests: { status: 429, message: 'Too many requests of this session are in flight' },
  internal_error: { status: 500, message: 'Internal error' },
  upstream_error: { status: 502, message: 'The data server gave an unusable answer' },
  upstream_unavailable: { status: 502, message: 'The data server is unavailable' },
  response_too_large: { status: 502, message: "The data server's answer is larger than this service relays" },
  upstream_auth_disabled: { status: 502, message: 'Data-server authentication is disabled, so no token can be issued' },
  mapped_credential_refused: {
    status: 502,
    message: "TigerGraph refused the service's credential for this sign-in rule; tell the operator",
  },
  overloaded: { status: 503, message: 'This instance is overloaded; try again shortly' },
  store_unavailable: { status: 503, message: 'Session store unavailable' },
  idp_unavailable: { status: 503, message: 'The identity provider is unavailable; try again shortly' },
  token_unavailable: { status: 503, message: 'No upstream token is available right now; try again' },
  upstream_timeout: { status: 504, message: 'The data server did not answer in time' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const isErrorCode = (value: string): value is ErrorCode => Object.hasOwn(ERROR_CODES, value);
