import { AppError, isAppError } from '../errors.js';
import { failureOfKind, upstreamFailure } from '../errors/upstream.js';
import { TigerGraphError } from '@tigergraph-bff/client';

/** Where a token call happened: verifying a secret at login, or serving an existing session. */
export type TokenPhase = 'login' | 'session';

/**
 * Turns a failed token call into the service's error vocabulary, switching on `kind` only. Messages
 * are public, so they never carry the secret or token; the original error stays as `cause` for logs.
 * Store errors are already AppErrors (503 store_unavailable) and pass through unchanged. `server` is where
 * the token call went (4.1+ asks the admin server), so a transport fault names that server's setting.
 */
export function mapUpstreamError(err: unknown, phase: TokenPhase, server: 'data' | 'admin' = 'data'): unknown {
  if (isAppError(err) || !(err instanceof TigerGraphError)) return err;
  const cause = { cause: err };
  switch (err.kind) {
    case 'invalid_credentials':
      return phase === 'login'
        ? new AppError('invalid_credentials', 'The secret was not accepted', cause)
        : new AppError('session_expired', 'The session credentials no longer work; log in again', cause);
    case 'auth_disabled':
      return new AppError('upstream_auth_disabled', cause);
    case 'graph_not_found':
      // Only a login names a graph; later, a graph gone from under a session ends it like a dead secret.
      return phase === 'login'
        ? new AppError('graph_not_found', cause)
        : new AppError('session_expired', 'The session credentials no longer work; log in again', cause);
    default:
      // Transport faults share one mapping with the relay; any other kind is an answer we cannot use.
      return upstreamFailure(failureOfKind(err.kind) ?? 'protocol', server, err);
  }
}

/** True when the error means the session's secret is dead, which no fallback may hide. */
export function endsSession(err: unknown): boolean {
  return isAppError(err) && err.code === 'session_expired';
}
