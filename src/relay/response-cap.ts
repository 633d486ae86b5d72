import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { AppError } from '../errors.js';

/** The error a cut answer's stream is destroyed with (logged and counted, never shown: headers are out). */
export class ResponseCutError extends Error {
  readonly code = 'ERR_RESPONSE_CAP';
}

/** 502 response_too_large, before anything is sent, for an answer whose declared length is over the cap. */
export function declaredOverCap(headers: IncomingHttpHeaders, maxBytes: number): AppError | null {
  const declared = headers['content-length'];
  if (declared === undefined || !(Number(declared) > maxBytes)) return null;
  return new AppError(
    'response_too_large',
    `The data server's answer (${declared} bytes) is larger than this service relays (${maxBytes} bytes); ask for less`,
  );
}

/**
 * Counts an answer's bytes as they stream and destroys it once they pass `maxBytes`, so the relay stops
 * there. Registered before the pipe, so the chunk that passes the cap is never written. The status and
 * the first bytes are out by then: the browser sees the connection end without the final chunk (an
 * incomplete body: fetch rejects while reading it), never a shorter answer that looks complete.
 */
export function capBytes(body: Readable, maxBytes: number, already = 0): void {
  let bytes = already;
  const onData = (chunk: Buffer): void => {
    bytes += chunk.length;
    if (bytes <= maxBytes) return;
    body.off('data', onData);
    body.pause();
    body.destroy(new ResponseCutError(`answer passed ${maxBytes} bytes`));
  };
  body.on('data', onData);
}
