import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, type ZlibOptions } from 'node:zlib';
import { AppError } from '../errors.js';

/**
 * A compressed request body is held to what it inflates to: MAX_BODY_BYTES means the bytes TigerGraph would
 * process, and a 1 MB gzip of zeros is a gigabyte there. Unless RELAY_COMPRESSED_BODIES allows them, a body with
 * a Content-Encoding other than identity is refused with 415 (TigerGraph documents no compressed request
 * bodies). Allowed, the buffered body is inflated once on libuv's thread pool, with zlib's own output bound, to
 * check its size; the original bytes are forwarded as they came.
 */
const INFLATERS: Record<string, (buf: Buffer, options: ZlibOptions) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress) as (buf: Buffer, options: ZlibOptions) => Promise<Buffer>,
};

export async function checkBodyEncoding(
  encoding: string | undefined,
  body: Buffer,
  maxBytes: number,
  compressedAllowed: boolean,
): Promise<void> {
  if (encoding === undefined) return;
  const name = encoding.trim().toLowerCase();
  if (name === '' || name === 'identity') return;
  if (!compressedAllowed)
    throw new AppError(
      'unsupported_encoding',
      'Compressed request bodies are not accepted (RELAY_COMPRESSED_BODIES): send the body uncompressed',
    );
  const inflater = INFLATERS[name];
  if (inflater === undefined)
    throw new AppError('unsupported_encoding', 'Content-Encoding must be one of gzip, deflate, br or identity');
  try {
    await inflater(body, { maxOutputLength: maxBytes });
  } catch (cause) {
    if ((cause as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE')
      throw new AppError('payload_too_large', `Request body inflates to more than ${maxBytes} bytes`, { cause });
    throw new AppError('invalid_request', `The request body is not valid ${name}`, { cause });
  }
}
