import { PassThrough, type Readable } from 'node:stream';
import { AppError } from '../errors.js';

/** The first bytes of a stream; `ended` means they are all of it. */
export interface BodyPrefix {
  readonly chunks: Buffer[];
  readonly size: number;
  readonly ended: boolean;
}

/** What the relay sends upstream: a Buffer (or nothing) can be sent twice, a stream only once. */
export type RelayBody = { readonly replayable: true; readonly data: Buffer | null } | { readonly replayable: false; readonly data: Readable };

const EMPTY: RelayBody = { replayable: true, data: null };

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
    const onClose = (): void => done(Object.assign(new Error('body stream closed early'), { code: 'ECONNRESET' }), false);
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
 * Buffers up to `maxBytes` so a rejected token can be replayed; beyond that, the buffered prefix and the
 * unread rest stream as one body. `pipe`, not `pipeline`: if undici gives up on the body, the browser's
 * request must stay intact so the BFF can still answer it.
 */
export async function relayBody(
  req: Readable & { headers: { 'content-length'?: string; 'transfer-encoding'?: string } },
  maxBytes: number,
): Promise<RelayBody> {
  if (!hasBody(req.headers)) return EMPTY;
  let prefix: BodyPrefix;
  try {
    prefix = await readPrefix(req, maxBytes);
  } catch (cause) {
    throw new AppError(400, 'invalid_request', 'The request body could not be read', { cause });
  }
  if (prefix.ended) return prefix.size === 0 ? EMPTY : { replayable: true, data: concatPrefix(prefix) };
  const rest = new PassThrough();
  for (const chunk of prefix.chunks) rest.write(chunk);
  req.once('error', (err) => rest.destroy(err));
  req.once('close', () => {
    if (!req.readableEnded) rest.destroy(Object.assign(new Error('request body aborted'), { code: 'ECONNRESET' }));
  });
  req.pipe(rest);
  return { replayable: false, data: rest };
}

/** Discards what is left of a partly read request so the connection can carry the BFF's answer. */
export function drainRequest(req: Readable): void {
  req.unpipe();
  if (!req.readableEnded) req.resume();
}
