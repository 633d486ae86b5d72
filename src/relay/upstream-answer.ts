import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { concatPrefix, readPrefix } from './body-prefix.js';
import { refusesToken } from './token-refusal.js';

/**
 * The data server's answer, with one decision already made: did it refuse our token itself? A 401 or
 * 403 body is read (small, bounded) and classified by token-refusal.ts, so permission refusals reach the
 * browser as they are instead of costing a new token per request.
 */
export interface UpstreamAnswer {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
  readonly tokenRejected: boolean;
  /** Bytes already read from the body (401/403 only), to be sent before `rest`. */
  readonly head: Buffer | null;
  /** The unread body; null when `head` is all of it. */
  readonly rest: Readable | null;
}

const REFUSAL_PEEK_BYTES = 64 * 1024;

interface DumpableBody extends Readable {
  dump(opts?: { limit: number }): Promise<void>;
}

export async function readAnswer(
  statusCode: number,
  headers: IncomingHttpHeaders,
  body: DumpableBody,
): Promise<UpstreamAnswer> {
  if (statusCode !== 401 && statusCode !== 403)
    return { statusCode, headers, tokenRejected: false, head: null, rest: body };
  const prefix = await readPrefix(body, REFUSAL_PEEK_BYTES);
  const head = concatPrefix(prefix);
  // RESTPP's refusals are short JSON; a longer body is some other answer and streams on unread.
  if (!prefix.ended) return { statusCode, headers, tokenRejected: false, head, rest: body };
  return { statusCode, headers, tokenRejected: refusesToken(statusCode, head), head, rest: null };
}
