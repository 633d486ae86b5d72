import { AppError, isAppError } from '../errors.js';
import { TigerGraphError } from '../tigergraph/errors.js';

/**
 * Admin-server failures in the service's vocabulary, switching on `kind` only. Messages are public, so
 * they never carry a username, password or secret; the original error stays as `cause` for logs.
 */
export function mapAdminError(err: unknown): unknown {
  if (isAppError(err) || !(err instanceof TigerGraphError)) return err;
  const cause = { cause: err };
  switch (err.kind) {
    case 'invalid_credentials':
      return new AppError(401, 'invalid_credentials', 'The admin server did not accept the username or password', cause);
    case 'secret_not_found':
      return new AppError(404, 'secret_not_found', 'No secret with that alias', cause);
    case 'secret_exists':
      return new AppError(409, 'secret_exists', 'A secret with that alias already exists', cause);
    case 'bad_request':
      return new AppError(400, 'invalid_request', 'The admin server refused the request', cause);
    case 'timeout':
      return new AppError(504, 'upstream_timeout', 'The admin server did not answer in time', cause);
    case 'unreachable':
      return new AppError(502, 'upstream_unavailable', 'The admin server is unreachable', cause);
    default:
      return new AppError(502, 'upstream_error', 'The admin server gave an unexpected answer', cause);
  }
}

export const forbiddenGraph = (): AppError =>
  new AppError(403, 'forbidden', 'The user has no privileges on that graph, or it does not exist');
