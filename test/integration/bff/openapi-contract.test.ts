import supertest from 'supertest';
import { CSRF, startRig, type Rig } from '../../helpers/app-rig.js';
import { loadContract, loadDocument, type Answer } from '../../helpers/openapi-contract.js';
import { until } from '../../helpers/wait.js';

const contract = loadContract();
const ORIGIN = 'https://app.example.com';
const ADMIN = `Basic ${Buffer.from('tigergraph:tigergraph').toString('base64')}`;

/** Asserts the status the test expects, then that the document lists it for the route and the body fits. */
function expectAnswer(method: string, template: string, res: Answer, status: number, code?: string): void {
  expect([method, template, res.status, code && (res.body as { error?: { code?: string } }).error?.code]).toEqual([
    method,
    template,
    status,
    code,
  ]);
  contract.check(method, template, res);
}

describe('the OpenAPI document against the running service', () => {
  let rig: Rig;
  const http = () => supertest(rig.service.app);
  beforeAll(async () => {
    rig = await startRig({
      env: {
        OPENAPI_ROUTE: 'true',
        ADMIN_ROUTES: 'true',
        ALLOWED_ORIGINS: ORIGIN,
        MAX_BODY_BYTES: '1024',
        RELAY_SESSION_CONCURRENCY: '1',
      },
    });
  });
  afterAll(() => rig.close());

  test('when /openapi.json is asked for, then it is the YAML document as JSON and fits its own description', async () => {
    const res = await http().get('/openapi.json');
    expectAnswer('GET', '/openapi.json', res, 200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(loadDocument());
  });

  test('when a login succeeds, fails or is malformed, then each answer is a documented one', async () => {
    expectAnswer(
      'POST',
      '/auth/login',
      await rig.agent().post('/auth/login').send({ secret: rig.secret, graph: 'social' }),
      200,
    );
    expectAnswer(
      'POST',
      '/auth/login',
      await rig.agent().post('/auth/login').send({ secret: 'not-a-secret' }),
      401,
      'invalid_credentials',
    );
    expectAnswer(
      'POST',
      '/auth/login',
      await rig.agent().post('/auth/login').send({ secret: 42 }),
      400,
      'invalid_request',
    );
    expectAnswer(
      'POST',
      '/auth/login',
      await rig.agent().post('/auth/login').set('Content-Type', 'application/json').send('{"secret":'),
      400,
      'invalid_request',
    );
    expectAnswer(
      'POST',
      '/auth/login',
      await rig.agent().post('/auth/login').send({ username: 'u', password: 'p', graph: 'social' }),
      400,
      'invalid_request',
    );
    expectAnswer(
      'POST',
      '/auth/login',
      await http().post('/auth/login').send({ secret: rig.secret }),
      403,
      'csrf_rejected',
    );
    expectAnswer(
      'POST',
      '/auth/login',
      await rig
        .agent()
        .post('/auth/login')
        .send({ secret: 'x'.repeat(20_000) }),
      413,
      'payload_too_large',
    );
    expectAnswer(
      'POST',
      '/auth/login',
      await rig.agent().post('/auth/login').send({ secret: 'abc', extra: 1 }),
      400,
      'invalid_request',
    );
    expectAnswer(
      'POST',
      '/auth/login',
      await rig.agent().post('/auth/login').set('Content-Type', 'text/plain').send('{}'),
      415,
      'unsupported_media_type',
    );
  });

  test('when the session is asked for with and without a login, and logout runs, then each answer is a documented one', async () => {
    const agent = await rig.login();
    expectAnswer('GET', '/auth/session', await agent.get('/auth/session'), 200);
    expectAnswer('POST', '/auth/logout', await agent.post('/auth/logout'), 204);
    expectAnswer('GET', '/auth/session', await agent.get('/auth/session'), 401, 'not_authenticated');
    expectAnswer('POST', '/auth/logout', await rig.agent().post('/auth/logout'), 204);
  });

  test('when the relay answers, refuses or caps a request, then each answer is a documented one', async () => {
    const agent = await rig.login();
    const upstreamBefore = rig.sim.seen().length;
    expectAnswer('GET', '/api/{path}', await agent.get('/api/echo'), 200);
    expectAnswer('GET', '/api/{path}', await agent.get('/api/graph/social/vertices/Person'), 200);
    expectAnswer('GET', '/api/{path}', await rig.agent().get('/api/echo'), 401, 'not_authenticated');
    expectAnswer('GET', '/api/{path}', await agent.get('/api/echo').set('X-Requested-With', ''), 403, 'csrf_rejected');
    expectAnswer(
      'DELETE',
      '/api/{path}',
      await agent.delete('/api/graph/social/vertices/Person/x'),
      403,
      'path_not_allowed',
    );
    expectAnswer('GET', '/api/{path}', await agent.get('/api/requesttoken'), 403, 'path_not_allowed');
    expectAnswer('GET', '/api/{path}', await agent.get('/api/graph/%2e%2e/x'), 400, 'invalid_path');
    const big = await agent
      .post('/api/query/social/hello')
      .set('Content-Type', 'application/json')
      .send({ pad: 'x'.repeat(4096) });
    expectAnswer('POST', '/api/{path}', big, 413, 'payload_too_large');
    // Only the two reads went upstream: every refusal is answered here.
    const relayed = rig.sim
      .seen()
      .slice(upstreamBefore)
      .filter((r) => r.port === 'restpp' && r.path !== '/requesttoken');
    expect(relayed.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /echo', 'GET /graph/social/vertices/Person']);
  });

  test('when one session has more relayed requests in flight than allowed, then the 429 is a documented one', async () => {
    const login = await http().post('/auth/login').set(CSRF).send({ secret: rig.secret, graph: 'social' });
    const cookie = String(login.headers['set-cookie']?.[0]).split(';')[0]!;
    const base = await rig.listen();
    // A query that runs until it is let go holds the session's one slot (RELAY_SESSION_CONCURRENCY=1) once
    // the data server has it.
    const mark = rig.sim.seen().length;
    const hold = new AbortController();
    const slow = fetch(`${base}/api/query/social/sleep?ms=60000`, {
      headers: { ...CSRF, Cookie: cookie },
      signal: hold.signal,
    }).catch((err: unknown) => err);
    await until('the holding query to reach the data server', () =>
      rig.sim
        .seen()
        .slice(mark)
        .some((r) => r.path === '/query/social/sleep'),
    );
    expectAnswer(
      'GET',
      '/api/{path}',
      await http().get('/api/echo').set(CSRF).set('Cookie', cookie),
      429,
      'too_many_requests',
    );
    // It held the slot all along: still running when let go.
    hold.abort();
    expect((await slow) as Error).toMatchObject({ name: 'AbortError' });
  });

  test('when a listed origin sends a preflight, then the 204 is a documented one', async () => {
    const res = await http().options('/api/echo').set('Origin', ORIGIN).set('Access-Control-Request-Method', 'GET');
    expectAnswer('OPTIONS', '/api/{path}', res, 204);
  });

  test('when the admin routes answer with and without credentials, then each answer is a documented one', async () => {
    expectAnswer('GET', '/admin/secrets', await http().get('/admin/secrets?graph=social'), 401, 'not_authenticated');
    expectAnswer(
      'GET',
      '/admin/secrets',
      await http().get('/admin/secrets?graph=social').set('Authorization', ADMIN),
      200,
    );
    const made = await http()
      .post('/admin/secrets')
      .set(CSRF)
      .set('Authorization', ADMIN)
      .send({ graph: 'social', alias: 'openapi_made' });
    expectAnswer('POST', '/admin/secrets', made, 201);
    expectAnswer(
      'POST',
      '/admin/secrets',
      await http()
        .post('/admin/secrets')
        .set(CSRF)
        .set('Authorization', ADMIN)
        .send({ graph: 'social', alias: 'openapi_made' }),
      409,
      'secret_exists',
    );
    expectAnswer(
      'POST',
      '/admin/secrets',
      await http().post('/admin/secrets').set(CSRF).set('Authorization', ADMIN).send({ graph: 'no such' }),
      400,
      'invalid_request',
    );
    expectAnswer(
      'POST',
      '/admin/secrets',
      await http()
        .post('/admin/secrets')
        .set(CSRF)
        .set('Authorization', ADMIN)
        .set('Content-Type', 'text/plain')
        .send('{}'),
      415,
      'unsupported_media_type',
    );
    expectAnswer(
      'GET',
      '/admin/secrets',
      await http().get('/admin/secrets?graph=social&all=1').set('Authorization', ADMIN),
      400,
      'invalid_request',
    );
    const drop = () => http().delete('/admin/secrets/openapi_made?graph=social').set(CSRF).set('Authorization', ADMIN);
    expectAnswer('DELETE', '/admin/secrets/{alias}', await drop(), 204);
    expectAnswer('DELETE', '/admin/secrets/{alias}', await drop(), 404, 'secret_not_found');
  });

  test('when the operator names a secret by alias, then list, an ambiguous end and an unknown alias are documented answers', async () => {
    // Two secrets with one masked form (3.x, the rig's version): the listing tags each session's secret.
    for (const [alias, middle] of [
      ['openapi_twin_a', 'a'],
      ['openapi_twin_b', 'b'],
    ] as const) {
      const { value } = rig.sim.createSecret({ alias, value: `ope${middle.repeat(26)}api` });
      await rig.login(value);
    }
    const admin = (what: string, body: object) =>
      http().post(`/admin/sessions/${what}`).set(CSRF).set('Authorization', ADMIN).send(body);
    const listed = await admin('list', { alias: 'openapi_twin_a' });
    expectAnswer('POST', '/admin/sessions/list', listed, 200);
    expect(listed.body).toMatchObject({ match: 'masked', credentials: 2 });
    expectAnswer(
      'POST',
      '/admin/sessions/end',
      await admin('end', { alias: 'openapi_twin_a' }),
      409,
      'alias_ambiguous',
    );
    expectAnswer('POST', '/admin/sessions/end', await admin('end', { alias: 'openapi_none' }), 404, 'secret_not_found');
    expectAnswer(
      'POST',
      '/admin/sessions/end',
      await admin('end', { alias: 'openapi_twin_a', allMatching: true }),
      200,
    );
  });

  test('when the probes are asked, then liveness and readiness (ready, then draining) are documented answers', async () => {
    expectAnswer('GET', '/healthz', await http().get('/healthz'), 200);
    expectAnswer('GET', '/readyz', await http().get('/readyz'), 200);
    rig.service.drain();
    expectAnswer('GET', '/readyz', await http().get('/readyz'), 503);
  });
});

describe('the contract check itself', () => {
  const json = { 'content-type': 'application/json; charset=utf-8' };
  const error = (code: string) => JSON.stringify({ error: { code, message: 'm' } });

  test('when a status is not listed for the route, then the check fails', () => {
    expect(() =>
      contract.check('GET', '/auth/session', { status: 418, headers: json, text: error('not_found') }),
    ).toThrow(/does not list/);
    expect(() => contract.check('GET', '/healthz', { status: 503, headers: json, text: '{}' })).toThrow(
      /does not list/,
    );
  });

  test('when a body does not fit, or carries a code of another status, then the check fails', () => {
    expect(() =>
      contract.check('GET', '/auth/session', { status: 401, headers: json, text: error('csrf_rejected') }),
    ).toThrow(/does not fit/);
    expect(() => contract.check('GET', '/auth/session', { status: 401, headers: json, text: '{"error":"x"}' })).toThrow(
      /does not fit/,
    );
    expect(() =>
      contract.check('GET', '/auth/session', {
        status: 200,
        headers: json,
        text: '{"authenticated":true,"token":"t"}',
      }),
    ).toThrow(/does not fit/);
    expect(() => contract.check('POST', '/auth/logout', { status: 204, headers: {}, text: '{}' })).toThrow(
      /body the document does not describe/,
    );
    expect(() =>
      contract.check('GET', '/auth/session', { status: 401, headers: json, text: error('not_authenticated') }),
    ).not.toThrow();
  });
});
