import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { concatPrefix, readPrefix } from './body-prefix.js';

/**
 * The data server's answer, with one decision already made: did it refuse our token?
 * 401 always means the token (RESTPP has no other 401). 403 is ambiguous: token failures on some
 * versions (REST-10016 invalid, REST-10018 rejected, REST-10019 expired) but also plain permission or
 * mTLS refusals, which must reach the browser as they are instead of costing a new token per request.
 * So a 403 body is read (small, bounded) and searched for those codes; no JSON parsing.
 */
export interface UpstreamAnswer {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
  readonly tokenRejected: boolean;
  /** Bytes already read from the body (403 only), to be sent before `rest`. */
  readonly head: Buffer | null;
  /** The unread body; null when `head` is all of it. */
  readonly rest: Readable | null;
}

const FORBIDDEN_PEEK_BYTES = 64 * 1024;
const TOKEN_CODES = ['REST-10016', 'REST-10018', 'REST-10019'];

interface DumpableBody extends Readable {
  dump(opts?: { limit: number }): Promise<void>;
}

export async function readAnswer(
  statusCode: number,
  headers: IncomingHttpHeaders,
  body: DumpableBody,
): Promise<UpstreamAnswer> {
  if (statusCode === 401) {
    await body.dump().catch(() => undefined); // frees the pooled connection; a failure only costs it
    return { statusCode, headers, tokenRejected: true, head: null, rest: null };
  }
  if (statusCode !== 403) return { statusCode, headers, tokenRejected: false, head: null, rest: body };
  const prefix = await readPrefix(body, FORBIDDEN_PEEK_BYTES);
  const head = concatPrefix(prefix);
  if (!prefix.ended) return { statusCode, headers, tokenRejected: false, head, rest: body };
  const tokenRejected = TOKEN_CODES.some((code) => head.includes(code));
  return { statusCode, headers, tokenRejected, head, rest: null };
}
