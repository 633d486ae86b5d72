import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { Pool, type Dispatcher } from 'undici';

/**
 * Subject (b), the floor: the least a Node.js relay can do. node:http in, undici out on a keep-alive Pool,
 * one fixed bearer header added, the answer streamed back. No sessions, no checks, no logging. Run with
 * the service's node flags (subjects.ts), so the floor and (d) differ only in what they do per request.
 *
 * FLOOR_VARIANT picks the undici interface (issue 46: show that no variant is cheaper than the floor):
 * - `dispatch` (the default, subject `floor`): Pool.dispatch with a handler object made once per request,
 *   request headers as a flat array built once at start, answer chunks written to the response as they come,
 *   the answer's headers read from undici's raw array. The least allocation undici allows.
 * - `stream` (`floor-stream`): Pool.stream, a Writable per request as the answer's sink.
 * - `request` (`floor-request`): Pool.request and stream.pipeline, the floor before issue 46.
 * Env: PORT, UPSTREAM (the data server's URL), TOKEN, FLOOR_VARIANT.
 */
const upstream = new URL(process.env.UPSTREAM ?? 'http://127.0.0.1:9000');
const authorization = `Bearer ${process.env.TOKEN ?? ''}`;
const variant = process.env.FLOOR_VARIANT ?? 'dispatch';
const pool = new Pool(upstream.origin, { connections: 128, pipelining: 1 });
const host = upstream.host;

const pathOf = (req: IncomingMessage): string => {
  const url = req.url ?? '/';
  return url.startsWith('/api/') ? url.slice(4) : url;
};

function viaRequest(req: IncomingMessage, res: ServerResponse): void {
  pool
    .request({
      path: pathOf(req),
      method: req.method as 'GET',
      headers: { authorization, accept: req.headers.accept ?? '*/*' },
    })
    .then(async (answer) => {
      res.statusCode = answer.statusCode;
      const type = answer.headers['content-type'];
      if (type !== undefined) res.setHeader('content-type', type);
      await pipeline(answer.body, res);
    })
    .catch(() => failed(res));
}

function viaStream(req: IncomingMessage, res: ServerResponse): void {
  pool
    .stream(
      {
        path: pathOf(req),
        method: req.method as 'GET',
        headers: { authorization, accept: req.headers.accept ?? '*/*' },
      },
      ({ statusCode, headers }) => {
        res.statusCode = statusCode;
        const type = headers['content-type'];
        if (type !== undefined) res.setHeader('content-type', type);
        return new Writable({
          write(chunk: Buffer, _enc, done) {
            res.write(chunk);
            done();
          },
          final(done) {
            res.end();
            done();
          },
        });
      },
    )
    .catch(() => failed(res));
}

const CONTENT_TYPE = Buffer.from('content-type');

function viaDispatch(req: IncomingMessage, res: ServerResponse): void {
  const accept = req.headers.accept ?? '*/*';
  // undici takes headers as a flat [name, value, …] array without copying them into an object.
  const headers = ['host', host, 'authorization', authorization, 'accept', accept];
  let resumeAnswer: () => void = () => undefined;
  const handler: Dispatcher.DispatchHandler = {
    onConnect() {},
    onError() {
      failed(res);
    },
    onHeaders(statusCode, rawHeaders, resume) {
      res.statusCode = statusCode;
      resumeAnswer = resume;
      for (let i = 0; i < rawHeaders.length; i += 2) {
        if (CONTENT_TYPE.equals(rawHeaders[i] as Buffer)) res.setHeader('content-type', String(rawHeaders[i + 1]));
      }
      return true;
    },
    onData(chunk) {
      if (res.write(chunk)) return true;
      // The client reads slower than the data server sends: pause the answer until it drains.
      res.once('drain', resumeAnswer);
      return false;
    },
    onComplete() {
      res.end();
    },
  };
  pool.dispatch({ path: pathOf(req), method: req.method as 'GET', headers }, handler);
}

function failed(res: ServerResponse): void {
  if (!res.headersSent) res.writeHead(502).end();
  else res.destroy();
}

const relay = variant === 'request' ? viaRequest : variant === 'stream' ? viaStream : viaDispatch;
if (!['dispatch', 'stream', 'request'].includes(variant)) throw new Error(`FLOOR_VARIANT: unknown "${variant}"`);

const server = createServer(relay);
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.close().then(() => process.exit(0));
});
