import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rawRequest } from '../../helpers/raw-request.js';
import { startRelayApp, startUpstream, type RelayApp, type Upstream } from './relay-harness.js';

describe('relay header policy', () => {
  let upstream: Upstream;
  let relay: RelayApp;

  beforeAll(async () => {
    upstream = await startUpstream((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.setHeader('set-cookie', ['tg=1; Path=/', 'other=2']);
      res.setHeader('connection', 'keep-alive, x-hop');
      res.setHeader('x-hop', 'hop-value');
      res.setHeader('x-echo', 'Bearer tok1');
      res.setHeader('access-control-allow-origin', '*');
      res.setHeader('x-upstream', 'yes');
      res.end('{"error":false,"results":[]}');
    });
    relay = await startRelayApp(`${upstream.url}/restpp`);
  });
  afterAll(async () => {
    await relay.close();
    await upstream.close();
  });

  it('when the browser sends its credentials and spoofable headers, then the upstream sees only the bearer token and the BFF forwarding headers', async () => {
    const answer = await rawRequest(relay.port, '/api/query/social/q?x=1&y=%20z', {
      method: 'POST',
      headers: {
        cookie: '__Host-tgbff=s%3Asecret-session',
        authorization: 'Bearer browser-token',
        'x-requested-with': 'XMLHttpRequest',
        connection: 'keep-alive, x-private',
        'x-private': 'named-by-connection',
        'proxy-authorization': 'Basic abc',
        origin: 'https://app.example',
        referer: 'https://app.example/page',
        'x-forwarded-for': '6.6.6.6',
        'x-forwarded-host': 'evil.example',
        forwarded: 'for=6.6.6.6',
        'x-request-id': 'browser-chosen',
        'gsql-timeout': '1000',
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: '{"p":1}',
    });

    expect(answer.status).toBe(200);
    expect(upstream.seen).toHaveLength(1);
    const seen = upstream.seen[0]!;
    expect(seen.url).toBe('/restpp/query/social/q?x=1&y=%20z');
    expect(seen.body.toString()).toBe('{"p":1}');
    for (const dropped of [
      'cookie',
      'x-requested-with',
      'x-private',
      'proxy-authorization',
      'origin',
      'referer',
      'forwarded',
    ]) {
      expect(seen.headers[dropped]).toBeUndefined();
    }
    expect(seen.headers.authorization).toBe('Bearer tok1');
    expect(seen.headers['x-request-id']).toBe('rid-1');
    expect(seen.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen.headers['x-forwarded-proto']).toBe('http');
    expect(seen.headers['x-forwarded-host']).toBe(`127.0.0.1:${relay.port}`);
    expect(seen.headers.host).toBe(new URL(upstream.url).host);
    expect(seen.headers['gsql-timeout']).toBe('1000');
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.headers.accept).toBe('application/json');
  });

  it('when the upstream answers with cookies, hop-by-hop, CORS and token-echoing headers, then the browser gets none of them', async () => {
    const answer = await rawRequest(relay.port, '/api/echo');

    expect(answer.status).toBe(200);
    expect(answer.body).toBe('{"error":false,"results":[]}');
    expect(answer.headers['x-upstream']).toBe('yes');
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect(answer.headers['x-hop']).toBeUndefined();
    expect(answer.headers['x-echo']).toBeUndefined();
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect(JSON.stringify(answer.headers)).not.toContain('tok1');
  });
});
