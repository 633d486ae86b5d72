import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { rawRequest } from '../../helpers/raw-request.js';
import { startRelayApp, startUpstream, type RelayApp, type Upstream } from './relay-harness.js';

describe('relay allowlist and path guard', () => {
  let upstream: Upstream;
  let relay: RelayApp;

  beforeAll(async () => {
    upstream = await startUpstream();
    relay = await startRelayApp(upstream.url);
  });
  beforeEach(() => {
    upstream.seen.length = 0;
    relay.auth.tokenCalls = 0;
  });
  afterAll(async () => {
    await relay.close();
    await upstream.close();
  });

  const malformed = [
    '/api/graph/../requesttoken',
    '/api/graph/%2e%2e/requesttoken',
    '/api/graph/%2E%2E/%2E%2E/gsql/v1/secrets',
    '/api/graph/.%2e/x',
    '/api/graph/%252e%252e/x',
    '/api/graph%2fsocial',
    '/api/graph%2Fsocial',
    '/api/graph/%5c..%5crequesttoken',
    '/api/graph\\..\\requesttoken',
    '/api//evil.example/graph/x',
    '/api/graph//social',
    '/api/graph/./social',
    '/api/graph/social/%00',
    '/api/graph/%zz',
    '/api/graph/%C0%AE%C0%AE/x',
    'http://evil.example/api/echo',
  ];
  it.each(malformed)(
    'when the path is %s, then 400 invalid_path and nothing reaches upstream or the broker',
    async (path) => {
      const answer = await rawRequest(relay.port, path);

      expect(answer.status).toBe(400);
      expect(answer.code).toBe('invalid_path');
      expect(upstream.seen).toHaveLength(0);
      expect(relay.auth.tokenCalls).toBe(0);
    },
  );

  const neverRelayed: Array<[string, string]> = [
    ['POST', '/api/requesttoken'],
    ['POST', '/api/ReQuestToken'],
    ['POST', '/api/%72equesttoken'],
    ['DELETE', '/api/requesttoken?secret=s'],
    ['GET', '/api/echo/requesttoken'],
    ['POST', '/api/gsql/v1/statements'],
    ['GET', '/api/gsqlserver/gsql/file'],
    ['GET', '/api/%67sql/v1/secrets'],
    ['PUT', '/api/graph/social'],
  ];
  it.each(neverRelayed)('when %s %s, then 403 path_not_allowed and nothing reaches upstream', async (method, path) => {
    const answer = await rawRequest(relay.port, path, { method, body: method === 'GET' ? undefined : '{}' });

    expect(answer.status).toBe(403);
    expect(answer.code).toBe('path_not_allowed');
    expect(upstream.seen).toHaveLength(0);
    expect(relay.auth.tokenCalls).toBe(0);
  });

  const notAllowlisted: Array<[string, string]> = [
    ['DELETE', '/api/graph/social/vertices/User/u1'],
    ['GET', '/api/graphx/social'],
    ['POST', '/api/graph/social'],
    ['GET', '/api/showprocesslist'],
    ['OPTIONS', '/api/echo'],
  ];
  it.each(notAllowlisted)(
    'when %s %s is not allowlisted, then 403 path_not_allowed naming method and path',
    async (method, path) => {
      const answer = await rawRequest(relay.port, path, { method });

      expect(answer.status).toBe(403);
      expect(answer.code).toBe('path_not_allowed');
      expect(answer.body).toContain(`${method} ${path.slice('/api'.length)}`);
      expect(upstream.seen).toHaveLength(0);
    },
  );

  it('when an allowlisted path uses harmless escapes, then the upstream gets the path as the browser encoded it', async () => {
    const answer = await rawRequest(relay.port, '/api/%67raph/social/vertices/User/J%C3%BCrgen%20K?select=name');

    expect(answer.status).toBe(200);
    expect(upstream.seen.map((s) => s.url)).toEqual(['/%67raph/social/vertices/User/J%C3%BCrgen%20K?select=name']);
    expect(upstream.seen[0]!.headers.authorization).toBe('Bearer tok1');
  });

  it('when HEAD hits a GET-allowlisted prefix, then it is relayed', async () => {
    const answer = await rawRequest(relay.port, '/api/version', { method: 'HEAD' });

    expect(answer.status).toBe(200);
    expect(upstream.seen.map((s) => `${s.method} ${s.url}`)).toEqual(['HEAD /version']);
  });
});
