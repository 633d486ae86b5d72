import request from 'supertest';
import { LISTED, securityApp } from './security-app.js';

const XRW = 'X-Requested-With';
const HOST = 'bff.example.com:8443';

describe('CSRF guard', () => {
  it.each([
    ['POST', '/auth/login'],
    ['POST', '/auth/logout'],
    ['DELETE', '/admin/secrets/a'],
    ['GET', '/api/query/social/q'],
    ['POST', '/api/graph/social'],
    ['POST', '/AUTH/LOGOUT'],
    ['DELETE', '/%61dmin/secrets/a'],
    ['POST', '/elsewhere'],
  ])(
    'when %s %s lacks the CSRF header, then it is refused with 403 csrf_rejected and not handled',
    async (method, path) => {
      const { app, hits } = securityApp();
      const res = await request(app)[method.toLowerCase() as 'get'](path);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('csrf_rejected');
      expect(res.body.error.message).toMatch(
        /^Missing required header x-requested-with: send it with every \/api request/,
      );
      expect(hits).toEqual([]);
    },
  );

  it('when the CSRF header is present but empty, then the request is refused', async () => {
    const { app, hits } = securityApp();
    const res = await request(app).post('/auth/login').set(XRW, ' ');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('csrf_rejected');
    expect(hits).toEqual([]);
  });

  it.each([
    ['GET', '/auth/session'],
    ['HEAD', '/auth/session'],
    ['GET', '/'],
  ])('when %s %s is sent without the header, then it passes (not guarded)', async (method, path) => {
    const { app, hits } = securityApp();
    const res = await request(app)[method.toLowerCase() as 'get'](path);
    expect(res.status).toBe(200);
    expect(hits).toEqual([`${method} ${path}`]);
  });

  it('when the header is present and no Origin is sent, then the request passes', async () => {
    const { app, hits } = securityApp();
    const res = await request(app).post('/auth/login').set(XRW, 'XMLHttpRequest');
    expect(res.status).toBe(200);
    expect(hits).toEqual(['POST /auth/login']);
  });

  it('when the Origin is listed in ALLOWED_ORIGINS, then the request passes', async () => {
    const { app } = securityApp();
    const res = await request(app).post('/api/graph/social').set(XRW, '1').set('Origin', LISTED);
    expect(res.status).toBe(200);
  });

  it('when the Origin is the service itself (from Host), then the request passes', async () => {
    const { app } = securityApp();
    const res = await request(app).post('/auth/login').set('Host', HOST).set(XRW, '1').set('Origin', `http://${HOST}`);
    expect(res.status).toBe(200);
  });

  it.each([
    ['a foreign site', 'https://evil.example.com'],
    ['a listed host on another scheme', 'http://app.example.com'],
    ['a listed host on another port', 'https://app.example.com:8443'],
    ['our host on the wrong scheme', `https://${HOST}`],
  ])(
    'when the Origin is %s, then it is refused with 403 csrf_rejected naming the origin, ours and ALLOWED_ORIGINS',
    async (_what, origin) => {
      const { app, hits } = securityApp();
      const res = await request(app).post('/auth/login').set('Host', HOST).set(XRW, '1').set('Origin', origin);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: {
          code: 'csrf_rejected',
          message: `Origin "${origin}" is not allowed: it is not this service's own origin ("http://${HOST}") and not in ALLOWED_ORIGINS`,
        },
      });
      expect(hits).toEqual([]);
    },
  );

  it('when the Origin is the opaque null origin, then the refusal says it is not an http(s) origin', async () => {
    const { app, hits } = securityApp();
    const res = await request(app).post('/auth/login').set('Host', HOST).set(XRW, '1').set('Origin', 'null');
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/^Origin "null" is not an http\(s\) origin/);
    expect(hits).toEqual([]);
  });

  it('when the browser calls a foreign Origin same-origin, then the refusal names a proxy that rewrote it', async () => {
    const { app } = securityApp();
    const res = await request(app)
      .post('/auth/login')
      .set('Host', HOST)
      .set(XRW, '1')
      .set('Origin', 'http://localhost:5173')
      .set('Sec-Fetch-Site', 'same-origin');
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain(
      `Origin "http://localhost:5173" is not this service's own origin ("http://${HOST}"), yet the browser sent it as a same-origin request`,
    );
    expect(res.body.error.message).toContain('changeOrigin');
  });

  it('when the Referer names another origin than the Origin, then the refusal names a rewritten Origin', async () => {
    const { app } = securityApp();
    const res = await request(app)
      .post('/auth/login')
      .set('Host', HOST)
      .set(XRW, '1')
      .set('Origin', 'http://elsewhere.example')
      .set('Referer', 'http://localhost:5173/page?x=1');
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain(`yet the page's Referer is from "http://localhost:5173"`);
  });

  it('when the Origin is long and holds odd bytes, then the refusal repeats 100 characters of it, escaped', async () => {
    const { app } = securityApp();
    const origin = `https://e\u0085"vil.example/${'a'.repeat(5000)}`;
    const res = await request(app).post('/auth/login').set('Host', HOST).set(XRW, '1').set('Origin', origin);
    expect(res.status).toBe(403);
    const message = res.body.error.message as string;
    expect(message).toContain('"https://e\\u0085\\u0022vil.example/aaa');
    expect(message).not.toMatch(/[\u0080-\uffff]/);
    expect(message.length).toBeLessThan(400);
  });

  it('when a custom CSRF header is configured, then that header is the one required', async () => {
    const { app } = securityApp({ csrfHeader: 'x-csrf' });
    expect((await request(app).post('/auth/login').set(XRW, '1')).status).toBe(403);
    expect((await request(app).post('/auth/login').set('X-CSRF', '1')).status).toBe(200);
  });
});

describe('CSRF guard behind a proxy', () => {
  const forwarded = (app: Parameters<typeof request>[0]) =>
    request(app)
      .post('/auth/login')
      .set('Host', 'internal:8080')
      .set('X-Forwarded-Proto', 'https')
      .set('X-Forwarded-Host', 'bff.example.com')
      .set(XRW, '1')
      .set('Origin', 'https://bff.example.com');

  it.each([
    ['true', true],
    ['a hop count', 1],
    ['a loopback list', ['loopback']],
    ['an address list string', '127.0.0.1, ::1'],
  ])('when the proxy is trusted (%s), then the forwarded origin counts as our own', async (_what, trustProxy) => {
    const res = await forwarded(securityApp({ trustProxy }).app);
    expect(res.status).toBe(200);
  });

  it('when no option is given but the app trusts its proxy, then the app setting decides and the origin counts', async () => {
    const res = await forwarded(securityApp({}, true).app);
    expect(res.status).toBe(200);
  });

  it.each([
    ['unset, app untrusting', undefined],
    ['false', false],
    ['a list without the peer', ['10.0.0.0/8']],
  ])(
    'when the proxy is not trusted (%s), then forwarded headers are ignored and the origin is refused',
    async (_what, trustProxy) => {
      const res = await forwarded(securityApp(trustProxy === undefined ? {} : { trustProxy }).app);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('csrf_rejected');
    },
  );
});
