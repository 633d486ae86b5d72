import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Readable, Writable } from 'node:stream';

/**
 * A tool call as the relay's own request and response: the relay (src/relay/relay.ts) reads a node request
 * (method, headers, body stream) and writes a node response, and this gives it both in process, so a tool call
 * meets every check a browser's relayed request meets (allowlist, header and body rules, guardrails, the answer
 * cap, the token's refusal and one replay) without a second HTTP hop through the service's own port, which
 * would need a session cookie or a credential the agent must never hold.
 */
export interface InternalAnswer {
  status: number;
  headers: Record<string, string | number | readonly string[]>;
  body: Buffer;
}

export function internalRequest(method: 'GET' | 'POST', body: Buffer | null): IncomingMessage {
  const headers: IncomingHttpHeaders = { accept: 'application/json' };
  if (body !== null) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.length);
  }
  const stream = Readable.from(body === null ? [] : [body], { objectMode: false });
  return Object.assign(stream, {
    method,
    headers,
    rawHeaders: [],
    complete: true,
    httpVersion: '1.1',
  }) as unknown as IncomingMessage;
}

/** Collects what the relay writes; `done` settles when it ended (or was cut: the relay destroys it). */
export class InternalResponse extends Writable {
  statusCode = 200;
  private readonly headerMap = new Map<string, string | number | readonly string[]>();
  private readonly chunks: Buffer[] = [];
  headersSent = false;
  readonly done: Promise<InternalAnswer>;

  constructor() {
    super();
    this.done = new Promise((resolve, reject) => {
      this.once('finish', () =>
        resolve({
          status: this.statusCode,
          headers: Object.fromEntries(this.headerMap),
          body: Buffer.concat(this.chunks),
        }),
      );
      this.once('close', () => {
        if (!this.writableFinished)
          reject(Object.assign(new Error('the answer was cut'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
      });
    });
    // The relay settles its own errors; a rejection nobody awaits yet must not crash the process.
    this.done.catch(() => undefined);
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.headersSent = true;
    this.chunks.push(chunk);
    callback();
  }

  setHeader(name: string, value: string | number | readonly string[]): this {
    this.headerMap.set(name.toLowerCase(), value);
    return this;
  }

  getHeader(name: string): string | number | readonly string[] | undefined {
    return this.headerMap.get(name.toLowerCase());
  }

  hasHeader(name: string): boolean {
    return this.headerMap.has(name.toLowerCase());
  }

  removeHeader(name: string): void {
    this.headerMap.delete(name.toLowerCase());
  }

  asServerResponse(): ServerResponse {
    return this as unknown as ServerResponse;
  }
}
