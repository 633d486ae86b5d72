import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { Pool } from 'undici';
import { isAppError } from '../../../src/errors.js';
import { createMetrics, type Metrics } from '../../../src/observability/metrics.js';
import { DEFAULT_RELAY_ALLOW, parseRelayAllow } from '../../../src/relay/allowlist.js';
import { createRelay, type RelayAuth, type RelayOptions } from '../../../src/relay/relay.js';

/** What the loopback upstream saw, per request. */
export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export type UpstreamHandler = (req: IncomingMessage, res: ServerResponse, seen: Seen) => void;

export interface Upstream {
  url: string;
  seen: Seen[];
  handler: UpstreamHandler;
  /** Called as a request arrives, before its body is read (to watch bytes as they come). */
  onStart: ((req: IncomingMessage) => void) | null;
  close(): Promise<void>;
}

const okHandler: UpstreamHandler = (_req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end('{"error":false,"message":"ok"}');
};

/** A real data-server stand-in: records each request once its body has been read in full. */
export async function startUpstream(handler: UpstreamHandler = okHandler): Promise<Upstream> {
  const upstream: Upstream = { url: '', seen: [], handler, onStart: null, close: async () => undefined };
  const server = http.createServer((req, res) => {
    upstream.onStart?.(req);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      upstream.seen.push(seen);
      upstream.handler(req, res, seen);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  upstream.close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return upstream;
}

/** A seam for the token broker: hands out tok1, tok2, … and counts calls. Not a mock of anything real. */
export class FakeAuth implements RelayAuth {
  tokenCalls = 0;
  rejectedWith: string[] = [];
  current = 'tok1';
  private next = 2;
  constructor(private readonly mintsLeft = 1) {}

  async token(): Promise<string> {
    this.tokenCalls++;
    return this.current;
  }

  async rejected(token: string): Promise<string | null> {
    this.rejectedWith.push(token);
    if (this.rejectedWith.length > this.mintsLeft) return null;
    this.current = `tok${this.next++}`;
    return this.current;
  }
}

export interface RelayApp<A extends RelayAuth = FakeAuth> {
  url: string;
  port: number;
  auth: A;
  metrics: Metrics;
  close(): Promise<void>;
}

export async function startRelayApp<A extends RelayAuth = FakeAuth>(
  upstreamUrl: string,
  overrides: Partial<RelayOptions> & { auth?: A; trustProxy?: boolean } = {},
): Promise<RelayApp<A>> {
  const metrics = createMetrics({ defaultMetrics: false });
  const origin = new URL(upstreamUrl).origin;
  const pool = new Pool(origin, { connect: { timeout: 2000 } });
  const relay = createRelay({
    dispatcher: pool,
    upstreamUrl,
    allow: parseRelayAllow(`${DEFAULT_RELAY_ALLOW},* /echo`),
    upstreamTimeoutMs: 2000,
    maxBodyBytes: 1024,
    csrfHeader: 'X-Requested-With',
    metrics,
    ...overrides,
  });
  const auth = overrides.auth ?? (new FakeAuth() as RelayAuth as A);
  const app = express();
  app.set('trust proxy', overrides.trustProxy ?? false);
  // app.use, not app.all('/api/*splat'): a route param would be decoded by Express first, so a malformed
  // escape would fail there instead of reaching the guard under test.
  app.use(
    '/api',
    (req, res, next) =>
      void relay
        .handle(req, res, {
          auth,
          requestId: 'rid-1',
          url: req.originalUrl,
          forwarded: { clientIp: req.ip, proto: req.protocol, host: req.host },
        })
        .catch(next),
  );
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return void res.destroy();
    const status = isAppError(err) ? err.status : 500;
    const code = isAppError(err) ? err.code : 'internal_error';
    const message = isAppError(err) ? err.message : 'Internal error';
    res.status(status).json({ error: { code, message } });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    auth,
    metrics,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.close();
    },
  };
}

export const counterValue = async (metrics: Metrics, name: 'upstreamErrors', kind: string): Promise<number> =>
  (await metrics[name].get()).values.find((v) => v.labels.kind === kind)?.value ?? 0;
