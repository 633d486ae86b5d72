import supertest from 'supertest';
import { CSRF, startRig, type Rig } from '../../helpers/app-rig.js';

describe('the /api relay through the whole app', () => {
  let rig: Rig;
  let agent: supertest.Agent;
  beforeAll(async () => {
    rig = await startRig({ env: { ALLOWED_ORIGINS: 'https://app.example.com', RELAY_FORWARD_HEADERS: 'x-custom' } });
    agent = await rig.login();
  });
  afterAll(() => rig.close());

  const dataRequests = () =>
    rig.sim.seen().filter((r) => r.port === 'restpp' || r.path.startsWith('/graph') || r.path.startsWith('/query'));

  test('when a logged-in browser reads vertices, then the data server sees a bearer token and no browser credentials', async () => {
    const res = await agent
      .get('/api/graph/social/vertices/Person')
      .set('Authorization', 'Basic YnJvd3Nlcjpwdw==')
      .set('X-Custom', 'kept')
      .set('X-Not-Listed', 'dropped');
    expect(res.status).toBe(200);
    expect(res.body.results.length).toBeGreaterThan(0);
    const seen = rig.sim
      .seen()
      .filter((r) => r.path === '/graph/social/vertices/Person')
      .at(-1)!;
    const live = rig.sim.tokens().map((t) => t.token);
    expect(seen.auth).toBe('ok');
    expect(live).toContain(String(seen.headers.authorization).replace(/^Bearer /, ''));
    expect(seen.headers.cookie).toBeUndefined();
    expect(seen.headers['x-requested-with']).toBeUndefined();
    expect(seen.headers['x-custom']).toBe('kept'); // RELAY_FORWARD_HEADERS
    expect(seen.headers['x-not-listed']).toBeUndefined();
    expect(seen.headers['x-request-id']).toBe(res.headers['x-request-id']);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(JSON.stringify(res.headers)).not.toMatch(/bearer/i);
  });

  test('when a query runs with POST and a JSON body, then the body reaches the data server', async () => {
    const res = await agent.post('/api/query/social/friends').send({ person: 'alice' });
    expect(res.status).toBe(200);
    const seen = rig.sim
      .seen()
      .filter((r) => r.path === '/query/social/friends')
      .at(-1)!;
    expect(seen.method).toBe('POST');
    expect(seen.bodyText).toBe(JSON.stringify({ person: 'alice' }));
  });

  test.each([
    ['/api/requesttoken', [400, 403]],
    ['/api/ReQuestToken', [400, 403]],
    ['/api/%72equesttoken', [400, 403]],
    ['/api/gsqlserver/gsql/file', [400, 403]],
    ['/api/graph/social/../../requesttoken', [400, 403, 404]],
    ['/api/graph/%2e%2e/requesttoken', [400, 403]],
    ['/api/graph/%252e%252e/x', [400, 403]],
    ['/api/graph%2fsocial', [400, 403]],
    ['/api//evil.example.com/x', [400, 403]],
    ['/api/http://evil.example.com/', [400, 403]],
    ['/api/unlisted/path', [403]],
  ])('when the path is %s, then the relay refuses and the data server sees nothing', async (path, statuses) => {
    const before = dataRequests().length;
    const tokenCallsBefore = rig.sim.counts()['POST /requesttoken'] ?? 0;
    const res = await agent.get(path);
    expect(statuses).toContain(res.status);
    expect(res.body.error.code).toMatch(/^(invalid_path|path_not_allowed|not_found)$/);
    expect(dataRequests().length).toBe(before);
    expect(rig.sim.counts()['POST /requesttoken'] ?? 0).toBe(tokenCallsBefore);
  });

  test('when a method is not allowlisted for a path, then it is 403 path_not_allowed', async () => {
    const res = await agent.delete('/api/graph/social/vertices/Person/alice');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('path_not_allowed');
  });

  test('when the CSRF header is missing, then /api is 403 csrf_rejected', async () => {
    const res = await agent.get('/api/echo').set('X-Requested-With', '');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('csrf_rejected');
  });

  test('when the Origin is foreign, then /api and /auth/login are 403 csrf_rejected', async () => {
    const api = await agent.get('/api/echo').set('Origin', 'https://evil.example.com');
    expect(api.status).toBe(403);
    expect(api.body.error.code).toBe('csrf_rejected');
    const login = await supertest(rig.service.app)
      .post('/auth/login')
      .set(CSRF)
      .set('Origin', 'https://evil.example.com')
      .send({ secret: rig.secret });
    expect(login.status).toBe(403);
    expect(login.body.error.code).toBe('csrf_rejected');
  });

  test('when the Origin is allowlisted, then the request passes with credentialed CORS headers', async () => {
    const res = await agent.get('/api/echo').set('Origin', 'https://app.example.com');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(res.headers['access-control-allow-credentials']).toBe('true');
  });

  test('when a request has no session, then /api is a JSON 401 and never a redirect', async () => {
    const res = await supertest(rig.service.app).get('/api/echo').set(CSRF).set('Accept', 'text/html');
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/json/);
    expect(res.body.error.code).toBe('not_authenticated');
  });

  test('when an unknown route is asked for, then it is a JSON 404', async () => {
    const res = await supertest(rig.service.app).get('/nope').set(CSRF);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});
