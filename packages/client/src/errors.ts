/**
 * Why a TigerGraph call failed, as a closed set callers can switch on (never on message text).
 * - auth_disabled: the data server has authentication off (/requesttoken is "Endpoint is not found").
 * - invalid_credentials: bad secret, bad user/password, or permission denied.
 * - token_not_found: the token to refresh/delete does not exist (REST-3300).
 * - secret_not_found / secret_exists: DROP of an unknown alias / CREATE of an existing one.
 * - graph_not_found: the graph named does not exist, or the credential may not use it (TigerGraph does not
 *   tell the two apart).
 * - bad_request: the server refused the request shape (e.g. REST-1101).
 * - timeout / unreachable: transport failures.
 * - protocol: an answer we could not understand.
 */
export type TigerGraphErrorKind =
  | 'auth_disabled'
  | 'invalid_credentials'
  | 'token_not_found'
  | 'secret_not_found'
  | 'secret_exists'
  | 'graph_not_found'
  | 'bad_request'
  | 'timeout'
  | 'unreachable'
  | 'protocol';

export class TigerGraphError extends Error {
  readonly kind: TigerGraphErrorKind;
  /** TigerGraph's code (e.g. REST-3300) or a client-side one (E-00001); undefined when none. */
  readonly code: string | undefined;
  /** HTTP status of the answer, undefined for transport failures. */
  readonly status: number | undefined;

  constructor(
    kind: TigerGraphErrorKind,
    message: string,
    options: { code?: string; status?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TigerGraphError';
    this.kind = kind;
    this.code = options.code;
    this.status = options.status;
  }
}

/** Masks a credential the way TigerGraph does in its own output: first 3 + "****" + last 3. */
export function maskSecret(value: string): string {
  if (value.length <= 6) return '****';
  return `${value.slice(0, 3)}****${value.slice(-3)}`;
}
