import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import { rawRequest } from '../../helpers/raw-request.js';
import { FakeAuth, counterValue, startRelayApp, startUpstream, type RelayApp, type Upstream } from './relay-harness.js';

const REJECTED_BODY = (code: string) =>
  `{"error":true,"message":"Access Denied because the input token = 'tok****' is invalid","code":"${code}"}`;

/** Answers `status` with a token error for the listed tokens, 200 echoing the body for any other. */
function tokenGate(upstream: Upstream, badTokens: string[], status = 401, code = 'REST-10016'): void {
  upstream.handler = (req, res, seen) => {
    res.setHeader('content-type', 'application/json');
    if (badTokens.some((t) => req.headers.authorization === `Bearer ${t}`)) {
      res.statusCode = status;
      res.end(REJECTED_BODY(code));
      return;
    }
    res.end(JSON.stringify({ error: false, echoed: seen.body.length }));
  };
}

describe('relay token replay', () => {
  let upstream: Upstream;
  let relay: RelayApp;
  let auth: FakeAuth;

  beforeAll(async () => {
    upstream = await startUpstream();
  });
  beforeEach(async () => {
    upstream.seen.length = 0;
    auth = new FakeAuth();
    relay = await startRelayApp(upstream.url, { auth, maxBodyBytes: 1024 });
  });
  afterEach(async () => {
    await relay.close();
  });
  afterAll(async () => {
    await upstream.close();
  });

  it('when the upstream rejects the token of a buffered POST, then the relay mints once and replays the same body with the new token', async () => {
    tokenGate(upstream, ['tok1']);
    const body = JSON.stringify({ person: 'p1', pad: 'x'.repeat(500) });

    const answer = await rawRequest(relay.port, '/api/query/social/q', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });

    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ error: false, echoed: body.length });
    expect(auth.rejectedWith).toEqual(['tok1']);
    expect(upstream.seen.map((s) => s.headers.authorization)).toEqual(['Bearer tok1', 'Bearer tok2']);
    expect(upstream.seen.map((s) => s.body.toString())).toEqual([body, body]);
  });

  it('when a 403 carries REST-10019 (expired), then it counts as a token rejection and the GET is replayed', async () => {
    tokenGate(upstream, ['tok1'], 403, 'REST-10019');

    const answer = await rawRequest(relay.port, '/api/graph/social/vertices/User');

    expect(answer.status).toBe(200);
    expect(auth.rejectedWith).toEqual(['tok1']);
    expect(upstream.seen.map((s) => s.headers.authorization)).toEqual(['Bearer tok1', 'Bearer tok2']);
  });

  it('when a 403 is not about the token, then the browser gets it as it is and no token is minted', async () => {
    upstream.handler = (_req, res) => {
      res.statusCode = 403;
      res.setHeader('content-type', 'application/json');
      res.end('{"error":true,"message":"no privilege READ_DATA","code":"REST-2000"}');
    };

    const answer = await rawRequest(relay.port, '/api/graph/social/vertices/User');

    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'REST-2000' });
    expect(auth.rejectedWith).toEqual([]);
    expect(upstream.seen).toHaveLength(1);
  });

  it('when a 401 REST-10016 says the token has no access to the graph, then the browser gets it as it is and no token is minted', async () => {
    const scope = `{"error":true,"message":"Access Denied because the input token = 'tok****' has no access to graph 'finance'.","code":"REST-10016"}`;
    upstream.handler = (_req, res) => {
      res.statusCode = 401;
      res.setHeader('content-type', 'application/json');
      res.end(scope);
    };

    const answer = await rawRequest(relay.port, '/api/graph/finance/vertices/Account');

    expect(answer.status).toBe(401);
    expect(answer.body).toBe(scope);
    expect(auth.rejectedWith).toEqual([]);
    expect(upstream.seen).toHaveLength(1);
  });

  it('when the replayed request is rejected too, then 401 token_rejected and no third attempt', async () => {
    tokenGate(upstream, ['tok1', 'tok2']);

    const answer = await rawRequest(relay.port, '/api/echo');

    expect(answer.status).toBe(401);
    expect(answer.code).toBe('token_rejected');
    expect(answer.body).not.toMatch(/tok[12]/);
    expect(upstream.seen).toHaveLength(2);
    expect(auth.rejectedWith).toEqual(['tok1']);
    expect(await counterValue(relay.metrics, 'upstreamErrors', 'rejected')).toBe(1);
  });

  it('when the broker cannot mint a new token, then 401 token_rejected without a replay', async () => {
    await relay.close();
    auth = new FakeAuth(0);
    relay = await startRelayApp(upstream.url, { auth });
    tokenGate(upstream, ['tok1']);

    const answer = await rawRequest(relay.port, '/api/echo');

    expect(answer.status).toBe(401);
    expect(answer.code).toBe('token_rejected');
    expect(upstream.seen).toHaveLength(1);
  });

  it('when the token of a chunked body is rejected, then the relay replays the same bytes with the new token', async () => {
    tokenGate(upstream, ['tok1']);
    const body = Buffer.alloc(1000, 'a');

    const answer = await chunkedPost(relay.port, '/api/query/social/q', body);

    expect(answer.status).toBe(200);
    expect(auth.rejectedWith).toEqual(['tok1']);
    expect(upstream.seen.map((s) => [s.headers.authorization, s.body.length])).toEqual([
      ['Bearer tok1', 1000],
      ['Bearer tok2', 1000],
    ]);
  });
});

/** Sends `body` chunked (no content-length), as a browser stream upload would. */
function chunkedPost(port: number, path: string, body: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    for (let i = 0; i < body.length; i += 8192) req.write(body.subarray(i, i + 8192));
    req.end();
  });
}
