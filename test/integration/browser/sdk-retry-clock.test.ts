import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@tigergraph-bff/browser';
import { elapse } from '../../helpers/wait.js';

// A small HTTP server on loopback plays the service with answers the real one gives rarely or never on cue
// (a 503 relayed from TigerGraph, a clock far from the browser's); the SDK talks to it over real HTTP.
type Handler = (req: IncomingMessage, res: ServerResponse) => void;
let server: Server;
let url: string;
let handler: Handler;
const seen: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen.length = 0;
});

/**
 * The stretch in which the SDK may not ask /auth/session again. The bug re-armed the check at once (a loop
 * showing within milliseconds); the SDK's own re-check comes MIN_RECHECK_MS (5 s) after the answer at the
 * soonest, and this wait's timer, armed after that one and due before it, always runs first.
 */
const QUIET_MS = 1000;

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

describe('browser SDK: nothing reaches TigerGraph twice', () => {
  test('when TigerGraph itself answered 503 to a GET query, then the SDK hands it back and does not send it again', async () => {
    handler = (_req, res) =>
      json(res, 503, { error: true, message: 'busy', code: 'REST-0003' }, { 'Retry-After': '0' });
    const sdk = createClient({ baseUrl: url, retry: { baseDelayMs: 1 } });
    const res = await sdk.relay('GET', '/query/social/q');
    expect(res.status).toBe(503);
    expect(seen).toEqual(['GET /api/query/social/q']);
  });

  test('when the service refused before TigerGraph (503 store_unavailable), then the GET is sent again', async () => {
    let n = 0;
    handler = (_req, res) =>
      n++ === 0
        ? json(res, 503, { error: { code: 'store_unavailable', message: 'x' } }, { 'Retry-After': '0' })
        : json(res, 200, { results: [] });
    const sdk = createClient({ baseUrl: url, retry: { baseDelayMs: 1 } });
    expect((await sdk.relay('GET', '/query/social/q')).status).toBe(200);
    expect(seen).toEqual(['GET /api/query/social/q', 'GET /api/query/social/q']);
  });
});

describe('browser SDK: the session end by the service clock', () => {
  test('when the browser clock is 10 minutes ahead of the service, then the SDK does not re-ask /auth/session in a loop', async () => {
    // The service's "now" is 10 minutes behind this process's; the session has an hour left by it.
    handler = (_req, res) => {
      const serviceNow = Date.now() - 600_000;
      json(
        res,
        200,
        {
          authenticated: true,
          graph: 'g',
          login: 'secret',
          sessionExpiresAt: new Date(serviceNow + 60_000).toISOString(),
        },
        { Date: new Date(serviceNow).toUTCString() },
      );
    };
    const sdk = createClient({ baseUrl: url });
    try {
      await sdk.session();
      await elapse(QUIET_MS, 'no second /auth/session may come in this stretch');
      // Before the fix the end looked 9 minutes past: every answer re-armed a check at once.
      expect(seen).toEqual(['GET /auth/session']);
    } finally {
      sdk.close();
    }
  });

  test('when no Date header shows the skew, then the re-check waits at least 5 s', async () => {
    handler = (_req, res) =>
      json(res, 200, {
        authenticated: true,
        graph: 'g',
        login: 'secret',
        sessionExpiresAt: new Date(Date.now() - 600_000).toISOString(),
      });
    const sdk = createClient({ baseUrl: url });
    try {
      await sdk.session();
      await elapse(QUIET_MS, 'no second /auth/session may come in this stretch');
      expect(seen).toEqual(['GET /auth/session']);
    } finally {
      sdk.close();
    }
  });
});
