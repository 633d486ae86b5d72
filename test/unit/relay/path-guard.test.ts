import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../../src/errors.js';
import { parseRelayAllow } from '../../../src/relay/allowlist.js';
import { guardRelayRequest, parseRelayPath } from '../../../src/relay/path-guard.js';

function refusal(fn: () => unknown): { status: number; code: string; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return { status: err.status, code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('parseRelayPath', () => {
  it('when the path is clean, then target keeps the raw path and query and path is decoded', () => {
    expect(parseRelayPath('/api/graph/social/vertices/J%C3%BCrgen?select=a%2Cb&x=..', '/api')).toEqual({
      path: '/graph/social/vertices/Jürgen',
      target: '/graph/social/vertices/J%C3%BCrgen?select=a%2Cb&x=..',
    });
  });

  it('when the path ends with a slash, then it is accepted', () => {
    expect(parseRelayPath('/api/endpoints/', '/api').path).toBe('/endpoints/');
  });

  it.each([
    '/api',
    '/apix/echo',
    'http://evil/api/echo',
    '//evil/api/echo',
    '/api//evil/echo',
    '/api/a/../b',
    '/api/a/./b',
    '/api/a/..',
    '/api/..;/requesttoken',
    '/api/a/%2e%2e/b',
    '/api/a/%2E./b',
    '/api/a/%252e%252e/b',
    '/api/a%2fb',
    '/api/a%5cb',
    '/api/a\\b',
    '/api/a%00b',
    '/api/a\u0000b',
    '/api/a%0d%0ab',
    '/api/a\rb',
    '/api/a b',
    '/api/a%7fb',
    '/api/a%zzb',
    '/api/a%2',
    '/api/a%C0%AEb',
    '/api/a#frag',
    '/api/a?q=\u0000',
    '/api/é',
  ])('when the URL is %j, then 400 invalid_path', (url) => {
    expect(refusal(() => parseRelayPath(url, '/api'))).toMatchObject({ status: 400, code: 'invalid_path' });
  });

  it.each([
    '/api/requesttoken',
    '/api/REQUESTTOKEN',
    '/api/%72%65questtoken',
    '/api/requesttoken;x',
    '/api/echo/RequestToken',
    '/api/gsql',
    '/api/gsqlserver/gsql/file',
    '/api/GSQL/v1/secrets',
    '/api/%47sql/v1/tokens',
  ])('when the URL is %j, then 403 path_not_allowed whatever the allowlist says', (url) => {
    const everything = parseRelayAllow('* /');
    expect(refusal(() => guardRelayRequest(everything, 'POST', url, '/api'))).toMatchObject({
      status: 403,
      code: 'path_not_allowed',
    });
  });

  it('when the method is not allowlisted, then the message names method and decoded path', () => {
    const rules = parseRelayAllow('GET /graph/');
    expect(refusal(() => guardRelayRequest(rules, 'DELETE', '/api/%67raph/social?x=1', '/api'))).toEqual({
      status: 403,
      code: 'path_not_allowed',
      message: 'DELETE /graph/social is not relayed',
    });
  });

  it('when an escape spells an allowlisted prefix, then the decoded path is what gets checked', () => {
    const rules = parseRelayAllow('GET /graph/');
    expect(guardRelayRequest(rules, 'GET', '/api/%67raph/social', '/api').target).toBe('/%67raph/social');
    expect(() => guardRelayRequest(rules, 'GET', '/api/%67raphx/social', '/api')).toThrow(AppError);
  });
});
