import { AppError, isAppError } from '../errors.js';
import { failureOfKind, upstreamFailure } from '../errors/upstream.js';
import { TigerGraphError } from '@tigergraph-bff/client';

/**
 * Admin-server failures in the service's vocabulary, switching on `kind` only. Messages are public, so
 * they never carry a username, password or secret; the original error stays as `cause` for logs.
 */
export function mapAdminError(err: unknown): unknown {
  if (isAppError(err) || !(err instanceof TigerGraphError)) return err;
  const cause = { cause: err };
  switch (err.kind) {
    case 'invalid_credentials':
      return new AppError('invalid_credentials', 'The admin server did not accept the username or password', cause);
    case 'secret_not_found':
      return new AppError('secret_not_found', cause);
    case 'secret_exists':
      return new AppError('secret_exists', cause);
    case 'bad_request':
      return new AppError('invalid_request', 'The admin server refused the request', cause);
    case 'graph_not_found':
      return new AppError('forbidden', cause);
    default:
      return upstreamFailure(failureOfKind(err.kind) ?? 'protocol', 'admin', err);
  }
}
