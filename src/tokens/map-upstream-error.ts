import { AppError, isAppError } from '../errors.js';
import { TigerGraphError } from '../tigergraph/errors.js';

/** Where a token call happened: verifying a secret at login, or serving an existing session. */
export type TokenPhase = 'login' | 'session';

/**
 * Turns a failed token call into the service's error vocabulary, switching on `kind` only. Messages
 * are public, so they never carry the secret or token; the original error stays as `cause` for logs.
 * Store errors are already AppErrors (503 store_unavailable) and pass through unchanged.
 */
export function mapUpstreamError(err: unknown, phase: TokenPhase): unknown {
  if (isAppError(err) || !(err instanceof TigerGraphError)) return err;
  const cause = { cause: err };
  switch (err.kind) {
    case 'invalid_credentials':
      return phase === 'login'
        ? new AppError(401, 'invalid_credentials', 'The secret was not accepted', cause)
        : new AppError(401, 'session_expired', 'The session credentials no longer work; log in again', cause);
    case 'auth_disabled':
      return new AppError(
        502,
        'upstream_auth_disabled',
        'Data-server authentication is disabled, so no token can be issued',
        cause,
      );
    case 'timeout':
      return new AppError(504, 'upstream_timeout', 'The data server did not answer in time', cause);
    case 'unreachable':
      return new AppError(502, 'upstream_unavailable', 'The data server is unreachable', cause);
    default:
      return new AppError(502, 'upstream_error', 'The data server gave an unexpected answer to a token call', cause);
  }
}

/** True when the error means the session's secret is dead, which no fallback may hide. */
export function endsSession(err: unknown): boolean {
  return isAppError(err) && err.code === 'session_expired';
}
