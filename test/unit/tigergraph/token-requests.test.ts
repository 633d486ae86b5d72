import { TigerGraphError } from '../../../packages/client/src/errors.js';
import { basicAuth, buildTokenCall } from '../../../packages/client/src/token-requests.js';

const urls = { restppUrl: 'http://tg:9000/', gsqlUrl: 'http://tg:14240' };
const secret = 's3cr3tvalue';

describe('buildTokenCall, query era (≤3.4)', () => {
  test('when requesting, then it is GET with secret and lifetime in the query string', () => {
    expect(buildTokenCall('query', 'request', { secret, lifetime: 60 }, urls)).toEqual({
      method: 'GET',
      url: 'http://tg:9000/requesttoken?secret=s3cr3tvalue&lifetime=60',
    });
  });

  test('when refreshing and deleting, then PUT and DELETE carry the token in the query string', () => {
    expect(buildTokenCall('query', 'refresh', { secret, token: 'tok', lifetime: 5 }, urls).url).toBe(
      'http://tg:9000/requesttoken?secret=s3cr3tvalue&token=tok&lifetime=5',
    );
    const del = buildTokenCall('query', 'delete', { secret, token: 'tok' }, urls);
    expect([del.method, del.url]).toEqual(['DELETE', 'http://tg:9000/requesttoken?secret=s3cr3tvalue&token=tok']);
  });

  test('when asked for a user/password token, then it refuses clearly', () => {
    const attempt = () =>
      buildTokenCall('query', 'request', { basic: { username: 'u', password: 'p' }, graph: 'g' }, urls);
    expect(attempt).toThrow(TigerGraphError);
    expect(attempt).toThrow(/versions < 3.5/);
  });
});

describe('buildTokenCall, json era (3.5–4.0)', () => {
  test('when requesting with a secret, then POST carries a JSON body with the lifetime as a string', () => {
    const call = buildTokenCall('json', 'request', { secret, lifetime: 100 }, urls);
    expect(call.method).toBe('POST');
    expect(call.url).toBe('http://tg:9000/requesttoken');
    expect(JSON.parse(call.body ?? '')).toEqual({ secret, lifetime: '100' });
    expect(call.headers?.['authorization']).toBeUndefined();
  });

  test('when requesting with user/password, then Basic auth and the graph go along, and no secret', () => {
    const call = buildTokenCall(
      'json',
      'request',
      { basic: { username: 'tigergraph', password: 'pw' }, graph: 'social' },
      urls,
    );
    expect(call.headers?.['authorization']).toBe(basicAuth('tigergraph', 'pw'));
    expect(JSON.parse(call.body ?? '')).toEqual({ graph: 'social' });
  });

  test('when requesting with a secret and a graph, then the graph goes along (TigerGraph checks the pair); a refresh never names one', () => {
    const call = buildTokenCall('json', 'request', { secret, graph: 'social' }, urls);
    expect(JSON.parse(call.body ?? '')).toEqual({ secret, graph: 'social' });
    const put = buildTokenCall('json', 'refresh', { secret, token: 't', graph: 'social' }, urls);
    expect(JSON.parse(put.body ?? '')).toEqual({ secret, token: 't' });
  });

  test('when refreshing and deleting, then PUT and DELETE carry secret and token in the body', () => {
    const put = buildTokenCall('json', 'refresh', { secret, token: 't', lifetime: 7 }, urls);
    expect([put.method, JSON.parse(put.body ?? '')]).toEqual(['PUT', { secret, token: 't', lifetime: '7' }]);
    const del = buildTokenCall('json', 'delete', { secret, token: 't', lifetime: 7 }, urls);
    expect([del.method, JSON.parse(del.body ?? '')]).toEqual(['DELETE', { secret, token: 't' }]);
  });
});

describe('buildTokenCall, jwt era (4.1+)', () => {
  test('when requesting or refreshing, then both POST /gsql/v1/tokens on the admin server', () => {
    for (const op of ['request', 'refresh'] as const) {
      const call = buildTokenCall('jwt', op, { secret, token: 'old', lifetime: 30 }, urls);
      expect([call.method, call.url]).toEqual(['POST', 'http://tg:14240/gsql/v1/tokens']);
      expect(JSON.parse(call.body ?? '')).toEqual({ secret, lifetime: '30' });
    }
  });

  test('when requesting with a secret and a graph, then the token is asked for that graph', () => {
    const call = buildTokenCall('jwt', 'request', { secret, graph: 'social' }, urls);
    expect(JSON.parse(call.body ?? '')).toEqual({ secret, graph: 'social' });
  });

  test('when deleting, then DELETE /gsql/v1/tokens logs in as __GSQL__secret with the secret', () => {
    const call = buildTokenCall('jwt', 'delete', { secret, token: 'eyJ.a.b' }, urls);
    expect([call.method, call.url]).toEqual(['DELETE', 'http://tg:14240/gsql/v1/tokens']);
    expect(call.headers?.['authorization']).toBe(basicAuth('__GSQL__secret', secret));
    expect(JSON.parse(call.body ?? '')).toEqual({ tokens: 'eyJ.a.b' });
  });

  test('when only a /restpp data URL is configured, then the admin server is its origin', () => {
    const call = buildTokenCall(
      'jwt',
      'request',
      { secret },
      { restppUrl: 'https://tg.example:14240/restpp', gsqlUrl: undefined },
    );
    expect(call.url).toBe('https://tg.example:14240/gsql/v1/tokens');
  });
});
