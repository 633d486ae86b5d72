import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const MAX_BODY_BYTES = 16 * 1024 * 1024;

export type RawHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** A plain node:http server (no framework: the data path must stay cheap for the benchmark). */
export function createRawServer(handler: RawHandler, log?: (line: string) => void): Server {
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    handler(req, res).catch((err: unknown) => {
      log?.(`simulator handler failed: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) sendJson(res, 500, { error: true, message: 'Simulator internal error.' });
      else res.destroy();
    });
  });
  return server;
}

export function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Reads the whole body; requests without one (most GETs) skip the stream entirely. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
    return Promise.resolve(Buffer.alloc(0));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('request body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

// Unref: a long `sleep` or latency must not keep a closed simulator's process alive.
export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());
