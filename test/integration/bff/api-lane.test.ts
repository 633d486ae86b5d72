import supertest from 'supertest';
import { CSRF, startRig, type Rig } from '../../helpers/app-rig.js';

// /api is served by the lane in front of Express (src/http/server/front-door.ts). These pin down where the
// boundary runs and that what a browser sees from the lane matches what the app answers elsewhere.
describe('the /api lane in front of the app', () => {
  let rig: Rig;
  let agent: supertest.Agent;
  beforeAll(async () => {
    rig = await startRig({ env: { TRUST_PROXY: 'loopback' } });
    agent = await rig.login();
  });
  afterAll(() => rig.close());

  const http = () => supertest(rig.service.app);

  test('when a relayed answer comes back, then it carries the same security headers as an app page', async () => {
    const relayed = await agent.get('/api/echo').set('X-Forwarded-Proto', 'https').expect(200);
    const page = await http().get('/no-such-page').set('X-Forwarded-Proto', 'https').expect(404);
    for (const name of [
      'content-security-policy',
      'strict-transport-security',
      'x-content-type-options',
      'x-frame-options',
      'referrer-policy',
      'cross-origin-opener-policy',
    ]) {
      expect(relayed.headers[name]).toBeDefined();
      expect(relayed.headers[name]).toBe(page.headers[name]);
    }
    const plain = await agent.get('/api/echo').expect(200);
    expect(plain.headers['strict-transport-security']).toBeUndefined();
    expect(plain.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
    expect(relayed.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(relayed.headers.vary).toMatch(/Origin/);
  });

  test('when the lane refuses a request, then the error has the app error shape and headers', async () => {
    const laneError = await http().get('/api/echo').set(CSRF).set('X-Request-Id', 'lane-err-1').expect(401);
    const appError = await http().get('/auth/session').set(CSRF).expect(401);
    expect(laneError.body).toEqual({ error: { code: 'not_authenticated', message: 'Not logged in' } });
    expect(laneError.headers['content-type']).toBe(appError.headers['content-type']);
    expect(laneError.headers['cache-control']).toBe('no-store');
    expect(laneError.headers['x-request-id']).toBe('lane-err-1');
    expect(laneError.headers['content-security-policy']).toBe(appError.headers['content-security-policy']);
  });

  test('when a HEAD request is refused, then the answer has no body', async () => {
    const res = await http().head('/api/echo').set(CSRF).expect(401);
    expect(res.text ?? '').toBe('');
  });

  test.each([
    ['/api', 403],
    ['/api?x=1', 403],
    ['/api/echo', 403],
  ])(
    'when %s is asked for without the CSRF header, then the lane guards it (%i csrf_rejected)',
    async (path, status) => {
      const res = await http().get(path).expect(status);
      expect(res.body.error.code).toBe('csrf_rejected');
    },
  );

  test.each(['/apix', '/API/echo', '/api-docs'])(
    'when %s is asked for, then it is not the relay but the app: JSON 404',
    async (path) => {
      const before = rig.sim.seen().length;
      const res = await agent.get(path).expect(404);
      expect(res.body.error.code).toBe('not_found');
      expect(rig.sim.seen()).toHaveLength(before);
    },
  );

  test('when the service sits behind a trusted proxy, then the data server gets the forwarded client, scheme and host', async () => {
    const res = await agent
      .get('/api/echo')
      .set('X-Forwarded-For', '203.0.113.7')
      .set('X-Forwarded-Proto', 'https')
      .set('X-Forwarded-Host', 'bff.example.com')
      .expect(200);
    const seen = rig.sim
      .seen()
      .filter((r) => r.headers['x-request-id'] === res.headers['x-request-id'])
      .at(-1)!;
    expect(seen.headers['x-forwarded-for']).toBe('203.0.113.7');
    expect(seen.headers['x-forwarded-proto']).toBe('https');
    expect(seen.headers['x-forwarded-host']).toBe('bff.example.com');
  });

  test('when a relayed request finishes, then one access line names the /api route, status and request id', async () => {
    const res = await agent.get('/api/echo').set('X-Request-Id', 'lane-log-1').expect(200);
    expect(res.headers['x-request-id']).toBe('lane-log-1');
    const lines = rig
      .logs()
      .split('\n')
      .filter((l) => l.includes('"requestId":"lane-log-1"') && l.includes('"msg":"request"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: 'GET', route: '/api/*', status: 200 });
    expect(lines[0]!.bytes).toBeGreaterThan(0);
  });
});
