import { createServer } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Pool } from 'undici';

/**
 * Subject (b), the floor: the least any relay can do. node:http in, undici out on a keep-alive Pool,
 * one fixed bearer header added, the answer streamed back. No sessions, no checks, no logging.
 * Env: PORT, UPSTREAM (the data server's URL), TOKEN.
 */
const upstream = new URL(process.env.UPSTREAM ?? 'http://127.0.0.1:9000');
const authorization = `Bearer ${process.env.TOKEN ?? ''}`;
const pool = new Pool(upstream.origin, { connections: 128, pipelining: 1 });

const server = createServer((req, res) => {
  const path = (req.url ?? '/').replace(/^\/api(?=\/)/, '');
  pool
    .request({ path, method: req.method as 'GET', headers: { authorization, accept: req.headers.accept ?? '*/*' } })
    .then(async (answer) => {
      res.statusCode = answer.statusCode;
      const type = answer.headers['content-type'];
      if (type !== undefined) res.setHeader('content-type', type);
      await pipeline(answer.body, res);
    })
    .catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.close().then(() => process.exit(0));
});
