import { describe, expect, it } from '@jest/globals';
import http, { type IncomingHttpHeaders } from 'node:http';
import { HeaderPolicy } from '../../../src/relay/header-policy.js';

const fwd = { clientIp: '10.0.0.7', proto: 'https', host: 'bff.example' };

function pairs(flat: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

describe('HeaderPolicy', () => {
  const policy = new HeaderPolicy('X-CSRF-Token');

  it('when the browser request carries credentials, hop-by-hop and spoofable headers, then only safe ones go upstream plus ours', () => {
    const incoming: IncomingHttpHeaders = {
      host: 'bff.example',
      cookie: 'sid=1',
      authorization: 'Basic dXNlcjpwYXNz',
      'x-csrf-token': 'abc',
      connection: 'Keep-Alive, X-Secret',
      'x-secret': 'v',
      'keep-alive': 'timeout=5',
      te: 'trailers',
      trailer: 'x',
      'transfer-encoding': 'chunked',
      upgrade: 'websocket',
      'proxy-authorization': 'Basic x',
      expect: '100-continue',
      origin: 'https://app.example',
      referer: 'https://app.example/',
      'x-forwarded-for': '6.6.6.6',
      'x-forwarded-proto': 'http',
      'x-real-ip': '6.6.6.6',
      'x-request-id': 'mine',
      accept: 'application/json',
      'content-length': '12',
      'gsql-timeout': '500',
    };

    expect(pairs(policy.upstream(incoming, 'tok-123', 'rid-9', fwd))).toEqual([
      ['accept', 'application/json'],
      ['gsql-timeout', '500'],
      ['authorization', 'Bearer tok-123'],
      ['x-request-id', 'rid-9'],
      ['x-forwarded-proto', 'https'],
      ['x-forwarded-for', '10.0.0.7'],
      ['x-forwarded-host', 'bff.example'],
    ]);
  });

  it('when the upstream answer carries cookies, hop-by-hop, CORS or the token, then none of it is copied', () => {
    const res = new http.ServerResponse(new http.IncomingMessage(null as never));
    res.setHeader('x-frame-options', 'DENY');
    const upstream: IncomingHttpHeaders = {
      'content-type': 'application/json',
      'content-length': '10',
      'set-cookie': ['a=1', 'b=2'],
      connection: 'close, x-hop',
      'x-hop': '1',
      'keep-alive': 'timeout=5',
      'transfer-encoding': 'chunked',
      'proxy-authenticate': 'Basic',
      'access-control-allow-origin': '*',
      authorization: 'Bearer tok-123',
      'x-debug': 'used token tok-123',
      'x-frame-options': 'ALLOWALL',
      'x-tg-elapsed': '3',
    };

    policy.downstream(upstream, res, 'tok-123');

    expect(res.getHeaders()).toEqual({
      'x-frame-options': 'DENY',
      'cache-control': 'private, no-store',
      'content-type': 'application/json',
      'content-length': '10',
    });
  });

  it('when the upstream answer carries headers off the allowlist, then only listed ones pass, RELAY_RESPONSE_HEADERS adding names', () => {
    const upstream: IncomingHttpHeaders = {
      'content-type': 'text/csv',
      'content-disposition': 'attachment; filename="people.csv"',
      'cache-control': 'no-cache',
      etag: '"v1"',
      'retry-after': '5',
      'clear-site-data': '"*"',
      refresh: '0; url=https://evil.example',
      location: 'https://evil.example',
      'alt-svc': 'h3=":443"',
      'www-authenticate': 'Basic realm="tg"',
      'strict-transport-security': 'max-age=0',
      server: 'nginx/1.22',
      'x-tg-elapsed': '3',
    };
    const plain = new http.ServerResponse(new http.IncomingMessage(null as never));
    policy.downstream(upstream, plain, 'tok-123');
    expect(plain.getHeaders()).toEqual({
      'content-type': 'text/csv',
      'content-disposition': 'attachment; filename="people.csv"',
      'cache-control': 'private, no-store',
      etag: '"v1"',
      'retry-after': '5',
    });
    const widened = new http.ServerResponse(new http.IncomingMessage(null as never));
    new HeaderPolicy('x-requested-with', [], ['x-tg-elapsed', 'server']).downstream(upstream, widened, 'tok-123');
    expect(widened.getHeader('x-tg-elapsed')).toBe('3');
    expect(widened.getHeader('server')).toBe('nginx/1.22');
    expect(widened.getHeader('clear-site-data')).toBeUndefined();
  });

  it('when a refused name reaches the policy anyway (config is the gate), then it still never passes', () => {
    const res = new http.ServerResponse(new http.IncomingMessage(null as never));
    new HeaderPolicy('x-requested-with', [], ['set-cookie', 'location', 'access-control-allow-origin']).downstream(
      { 'set-cookie': ['a=1'], location: '/x', 'access-control-allow-origin': '*' },
      res,
      'tok',
    );
    expect(res.getHeaders()).toEqual({ 'cache-control': 'private, no-store' });
  });

  it('when upstream says public, max-age, then the answer is private, no-store unless RELAY_RESPONSE_HEADERS names cache-control', () => {
    const upstream: IncomingHttpHeaders = {
      'content-type': 'application/json',
      'cache-control': 'public, max-age=3600',
    };
    const own = new http.ServerResponse(new http.IncomingMessage(null as never));
    policy.downstream(upstream, own, 'tok');
    expect(own.getHeader('cache-control')).toBe('private, no-store');
    const passed = new http.ServerResponse(new http.IncomingMessage(null as never));
    new HeaderPolicy('x-requested-with', [], ['cache-control']).downstream(upstream, passed, 'tok');
    expect(passed.getHeader('cache-control')).toBe('public, max-age=3600');
  });
});
