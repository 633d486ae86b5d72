import { AppError } from '../errors.js';
import { upstreamFailure } from '../errors/upstream.js';
import { classifyTransportFailure, transportErrorCode, type TransportFailure } from '@tigergraph-bff/client';

/** Same labels as metrics.upstreamErrors. */
export type UpstreamErrorKind = TransportFailure | 'rejected';

/** The shared classification (on `code` only), so the relay and token calls name one fault alike. */
export const classifyUpstreamError = (err: unknown): UpstreamErrorKind => classifyTransportFailure(err);

export function upstreamAppError(kind: UpstreamErrorKind, cause: unknown): AppError {
  if (kind === 'rejected') return new AppError('token_rejected', { cause });
  return upstreamFailure(kind, 'data', cause);
}

/** What a response pipeline reports when the browser, not the data server, ended the exchange. */
const CLIENT_GONE_CODES = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'UND_ERR_ABORTED', 'ABORT_ERR']);

export function endedByClient(err: unknown): boolean {
  const code = transportErrorCode(err);
  return code !== undefined && CLIENT_GONE_CODES.has(code);
}
