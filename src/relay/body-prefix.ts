import type { Readable } from 'node:stream';
import { AppError } from '../errors.js';

/** The first bytes of a stream; `ended` means they are all of it. */
export interface BodyPrefix {
  readonly chunks: Buffer[];
  readonly size: number;
  readonly ended: boolean;
}

/**
 * Reads until the stream ends or holds more than `limit` bytes, then leaves it paused with the rest
 * unread. Listeners rather than async iteration: leaving a `for await` early would destroy the stream.
 */
export function readPrefix(stream: Readable, limit: number): Promise<BodyPrefix> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err: Error | null, ended: boolean): void => {
      stream.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (err) reject(err);
      else resolve({ chunks, size, ended });
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > limit) {
        stream.pause();
        done(null, false);
      }
    };
    const onEnd = (): void => done(null, true);
    const onError = (err: Error): void => done(err, false);
    const onClose = (): void =>
      done(Object.assign(new Error('body stream closed early'), { code: 'ECONNRESET' }), false);
    if (stream.readableEnded) return resolve({ chunks, size, ended: true });
    stream.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

export function concatPrefix(prefix: BodyPrefix): Buffer {
  return prefix.chunks.length === 1 ? prefix.chunks[0]! : Buffer.concat(prefix.chunks, prefix.size);
}

/** Node sets neither header for a body-less request, so no read (and no listener) is needed then. */
export function hasBody(headers: { 'content-length'?: string; 'transfer-encoding'?: string }): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * The whole request body, at most `maxBytes` of it, or null when there is none. Every relayed body is
 * held in full before anything goes upstream: a slow or endless upload then ties up only its own
 * socket (bounded by the server's request timeout), never a pooled upstream connection, and any body
 * can be replayed after a token refusal. A declared length over the cap is refused before a byte is
 * read; a chunked body as soon as it passes the cap, so the upstream never sees it at all.
 */
export async function readRequestBody(
  req: Readable & { headers: { 'content-length'?: string; 'transfer-encoding'?: string } },
  maxBytes: number,
): Promise<Buffer | null> {
  if (!hasBody(req.headers)) return null;
  const declared = Number(req.headers['content-length']);
  if (req.headers['transfer-encoding'] === undefined && declared > maxBytes) throw tooLarge(maxBytes);
  let prefix: BodyPrefix;
  try {
    prefix = await readPrefix(req, maxBytes);
  } catch (cause) {
    throw new AppError('invalid_request', 'The request body could not be read', { cause });
  }
  if (!prefix.ended) throw tooLarge(maxBytes);
  return prefix.size === 0 ? null : concatPrefix(prefix);
}

const tooLarge = (maxBytes: number): AppError =>
  new AppError('payload_too_large', `Request body is larger than ${maxBytes} bytes`);
