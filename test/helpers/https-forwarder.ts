import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface HttpsForwarder {
  /** https://127.0.0.1:port, no trailing slash. */
  url: string;
  port: number;
  /** "METHOD /path" of every request that got through the TLS handshake, in order. */
  forwarded(): string[];
  close(): Promise<void>;
}

/**
 * An https front for a plain-http server, like the nginx in front of TigerGraph Cloud: every path is
 * passed on unchanged, so a 4.1 simulator's admin port answers https://…/restpp/… (RESTPP) and
 * https://…/gsql/… (admin server) on one TLS origin. Bodies stream both ways.
 */
export async function startHttpsForwarder(opts: {
  target: string;
  key: string;
  cert: string;
}): Promise<HttpsForwarder> {
  const target = new URL(opts.target);
  const seen: string[] = [];
  const server: Server = createServer({ key: opts.key, cert: opts.cert }, (req, res) => {
    seen.push(`${req.method} ${(req.url ?? '/').split('?')[0]}`);
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    forwarded: () => [...seen],
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
