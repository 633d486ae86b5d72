import { AppError } from '../errors.js';
import type { TigerGraphErrorKind, TransportFailure } from '@tigergraph-bff/client';
import type { ErrorCode } from './codes.js';

/** The one mapping from a failed TigerGraph call to the service's codes (docs/api.md). */
export const UPSTREAM_FAILURE_CODES = {
  timeout: 'upstream_timeout',
  unavailable: 'upstream_unavailable',
  protocol: 'upstream_error',
} as const satisfies Record<TransportFailure, ErrorCode>;

const WHAT: Record<TransportFailure, string> = {
  timeout: 'did not answer in time',
  unavailable: 'is unavailable',
  protocol: 'gave an unusable answer',
};

/** The public error for a failed call to the data server (RESTPP) or the admin server (GSQL). */
export function upstreamFailure(failure: TransportFailure, server: 'data' | 'admin', cause: unknown): AppError {
  return new AppError(UPSTREAM_FAILURE_CODES[failure], `The ${server} server ${WHAT[failure]}`, {
    cause,
    dependency: server === 'data' ? 'tigergraph' : 'tigergraph_admin',
  });
}

/** TigerGraphError kinds that are transport or protocol failures, in the shared classification. */
export function failureOfKind(kind: TigerGraphErrorKind): TransportFailure | null {
  if (kind === 'timeout') return 'timeout';
  if (kind === 'unreachable') return 'unavailable';
  if (kind === 'protocol') return 'protocol';
  return null;
}
