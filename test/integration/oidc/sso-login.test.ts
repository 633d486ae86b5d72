import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import supertest from 'supertest';
import { startTestIdp, type TestIdp } from '../../helpers/oidc-provider.js';
import {
  CSRF,
  REDIRECT_URI,
  dropPrefix,
  jwtPayload,
  newPrefix,
  redisDump,
  sessionCookieOf,
  setCookies,
  ssoLogin,
  startCountingUpstream,
  startSsoService,
  type CountingUpstream,
  type SsoService,
} from './sso-rig.js';

describe('single sign-on: login through the redirects and the relay', () => {
  let idp: TestIdp;
  let upstream: CountingUpstream;
  let svc: SsoService;
  const prefix = newPrefix();

  beforeAll(async () => {
    idp = await startTestIdp({ redirectUris: [REDIRECT_URI], accessClaims: { graph: 'social' } });
    upstream = await startCountingUpstream();
    svc = await startSsoService({ idp, upstream: upstream.url, prefix });
  });

  afterAll(async () => {
    await svc.close();
    await upstream.close();
    await idp.close();
    await dropPrefix(prefix);
  });

  test('when the user logs in at the IdP, then the callback sets a fresh session cookie and redirects 303 to the post-login path', async () => {
    const login = await ssoLogin(svc.service.app, 'alice');
    expect(login.location).toBe('/');
    const session = await supertest(svc.service.app).get('/auth/session').set('Cookie', login.cookie);
    expect(session.status).toBe(200);
    expect(session.body).toEqual({
      authenticated: true,
      login: 'oidc',
      sub: 'alice',
      name: 'User alice',
      graph: 'social',
      tokenExpiresAt: expect.any(String),
      sessionExpiresAt: expect.any(String),
    });
  });

  test('when a logged-in session calls /api, then the bearer upstream is the IdP access token (a JWT for that user and audience)', async () => {
    const login = await ssoLogin(svc.service.app, 'bob');
    upstream.seen.length = 0;
    const res = await supertest(svc.service.app).get('/api/echo').set(CSRF).set('Cookie', login.cookie);
    expect(res.status).toBe(200);
    expect(upstream.seen).toHaveLength(1);
    const claims = jwtPayload(upstream.seen[0]!);
    expect(claims).toMatchObject({ sub: 'bob', aud: idp.audience, iss: idp.issuer, graph: 'social' });
  });

  test('when the session is stored, then no IdP token appears in Redis in clear nor in any answer to the browser', async () => {
    const login = await ssoLogin(svc.service.app, 'carol');
    upstream.seen.length = 0;
    await supertest(svc.service.app).get('/api/echo').set(CSRF).set('Cookie', login.cookie);
    const jwt = upstream.seen[0]!.replace('Bearer ', '');
    const dump = [...(await redisDump(prefix)).values()].join('\n');
    expect(dump).not.toContain(jwt);
    expect(dump).not.toContain(jwt.split('.')[1]);
    const session = await supertest(svc.service.app).get('/auth/session').set('Cookie', login.cookie);
    expect(session.text).not.toContain(jwt.split('.')[1]);
  });

  test('when return_to is a same-origin path, then the callback lands there; otherwise on the post-login path', async () => {
    expect((await ssoLogin(svc.service.app, 'dave', '?return_to=%2Fapp%3Fx%3D1')).location).toBe('/app?x=1');
    for (const evil of [
      '//evil.example',
      '/\\evil.example',
      'https://evil.example/',
      '/%2F%2Fevil.example',
      '/%5Cevil.example',
      '%2F%2Fevil.example',
      '/%252F%252Fevil',
    ]) {
      const login = await ssoLogin(svc.service.app, 'dave', `?return_to=${encodeURIComponent(evil)}`);
      expect([evil, login.location]).toEqual([evil, '/']);
    }
  });

  test('when a session existed before login, then the callback replaces its id (no fixation) and the old cookie is dead', async () => {
    const first = await ssoLogin(svc.service.app, 'erin');
    const { startLogin, idpLogin } = await import('./sso-rig.js');
    const { preCookie, authorizeUrl } = await startLogin(svc.service.app);
    const callback = await idpLogin(authorizeUrl, 'erin');
    const res = await supertest(svc.service.app)
      .get(`/auth/oidc/callback${callback.search}`)
      .set('Cookie', `${preCookie}; ${first.cookie}`);
    expect(res.status).toBe(303);
    const second = sessionCookieOf(res)!;
    expect(second).not.toBe(first.cookie);
    expect((await supertest(svc.service.app).get('/auth/session').set('Cookie', first.cookie)).status).toBe(401);
    expect((await supertest(svc.service.app).get('/auth/session').set('Cookie', second)).status).toBe(200);
    // The pre-login cookie is spent.
    expect(setCookies(res).some((c) => /^tgbff-sso=;/.test(c) && /Max-Age=0/.test(c))).toBe(true);
  });

  test('when the demo page asks which logins exist, then it learns that SSO is on', async () => {
    const res = await supertest(svc.service.app).get('/auth/methods');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ secret: true, password: false, oidc: true, oidcLoginUrl: '/auth/oidc/login' });
  });

  test('when the login starts, then the IdP request carries PKCE S256, state, nonce and the audience as resource', async () => {
    const res = await supertest(svc.service.app).get('/auth/oidc/login');
    const url = new URL(res.headers.location as string);
    expect(url.origin).toBe(idp.issuer);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: idp.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      code_challenge_method: 'S256',
      resource: idp.audience,
      scope: 'openid profile offline_access',
    });
    for (const p of ['state', 'nonce', 'code_challenge'])
      expect(url.searchParams.get(p)?.length).toBeGreaterThanOrEqual(22);
    const pre = setCookies(res).find((c) => c.startsWith('tgbff-sso='))!;
    expect(pre).toMatch(/HttpOnly/);
    expect(pre).toMatch(/SameSite=Lax/);
  });
});
