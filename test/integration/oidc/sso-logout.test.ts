import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import supertest from 'supertest';
import { auditValidator } from '../../helpers/audit-schema.js';
import { startTestIdp, type TestIdp } from '../../helpers/oidc-provider.js';
import {
  CSRF,
  REDIRECT_URI,
  dropPrefix,
  newPrefix,
  redisDump,
  ssoLogin,
  startCountingUpstream,
  startSsoService,
  type CountingUpstream,
  type SsoService,
} from './sso-rig.js';

const BACKCHANNEL = '/auth/oidc/backchannel-logout';

describe('single sign-on: logout, revocation and back-channel logout across instances', () => {
  let idp: TestIdp;
  let upstream: CountingUpstream;
  let a: SsoService;
  let b: SsoService;
  const prefix = newPrefix();

  beforeAll(async () => {
    idp = await startTestIdp({
      redirectUris: [REDIRECT_URI],
      postLogoutRedirectUris: ['http://bff.test/'],
      backchannelLogoutUri: 'http://bff.test/auth/oidc/backchannel-logout',
    });
    upstream = await startCountingUpstream();
    a = await startSsoService({ idp, upstream: upstream.url, prefix });
    b = await startSsoService({ idp, upstream: upstream.url, prefix });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await upstream.close();
    await idp.close();
    await dropPrefix(prefix);
  });

  const alive = async (svc: SsoService, cookie: string) =>
    (await supertest(svc.service.app).get('/auth/session').set('Cookie', cookie)).status === 200;
  const backchannel = (svc: SsoService, token: string | undefined, headers: Record<string, string> = {}) =>
    supertest(svc.service.app)
      .post(BACKCHANNEL)
      .type('form')
      .set(headers)
      .send(token === undefined ? {} : { logout_token: token });

  test('when an SSO session logs out by POST, then it ends locally, its refresh token is revoked at the IdP, and the answer is an empty 204 (no URL, no token)', async () => {
    const { cookie } = await ssoLogin(a.service.app, 'alice');
    const destroyedBefore = idp.destroyedRefreshTokens();
    const res = await supertest(a.service.app).post('/auth/logout').set(CSRF).set('Cookie', cookie);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(idp.destroyedRefreshTokens()).toBeGreaterThan(destroyedBefore);
    expect(await alive(a, cookie)).toBe(false);
    expect((await supertest(b.service.app).get('/api/echo').set(CSRF).set('Cookie', cookie)).status).toBe(401);
    // The audit trail has the SSO login and its logout, by subject and session hash, and no IdP token.
    const text = a.audit();
    expect(auditValidator().problems(text)).toEqual([]);
    const events = auditValidator().events(text);
    const login = events.filter((e) => e.event === 'login.succeeded').at(-1);
    expect(login).toMatchObject({ login: 'oidc', user: 'alice' });
    expect(events.filter((e) => e.session === login!.session).map((e) => e.event)).toEqual([
      'login.succeeded',
      'logout',
      'session.ended',
    ]);
    expect(text).not.toMatch(/eyJ[\w-]+\.eyJ/); // no JWT (id or access token)
  });

  /** What a browser sends when the page's own logout button navigates to the URL. */
  const NAVIGATION = {
    'Sec-Fetch-Site': 'same-origin',
    'Sec-Fetch-Mode': 'navigate',
    'Sec-Fetch-Dest': 'document',
    'Sec-Fetch-User': '?1',
  };
  const oidcLogout = (svc: SsoService, cookie: string | undefined, headers: Record<string, string>) => {
    const req = supertest(svc.service.app).get('/auth/oidc/logout').set(headers);
    return cookie === undefined ? req : req.set('Cookie', cookie);
  };

  test("when the page navigates to GET /auth/oidc/logout, then the session ends everywhere and the browser goes to the IdP's end-session endpoint with the id token as hint", async () => {
    const { cookie } = await ssoLogin(a.service.app, 'alice');
    const destroyedBefore = idp.destroyedRefreshTokens();
    const res = await oidcLogout(a, cookie, NAVIGATION);
    expect(res.status).toBe(303);
    expect(res.headers['cache-control']).toBe('no-store');
    const url = new URL(res.headers.location as string);
    expect(url.origin).toBe(idp.issuer);
    expect(url.searchParams.get('post_logout_redirect_uri')).toBe('http://bff.test/');
    expect(url.searchParams.get('client_id')).toBe(idp.clientId);
    const hint = url.searchParams.get('id_token_hint')!;
    expect(JSON.parse(Buffer.from(hint.split('.')[1]!, 'base64url').toString())).toMatchObject({
      sub: 'alice',
      aud: idp.clientId,
    });
    expect(String(res.headers['set-cookie'])).toMatch(/^tgbff=;/);
    expect(idp.destroyedRefreshTokens()).toBeGreaterThan(destroyedBefore);
    expect(await alive(a, cookie)).toBe(false);
    expect((await supertest(b.service.app).get('/api/echo').set(CSRF).set('Cookie', cookie)).status).toBe(401);
  });

  test.each([
    [
      'a cross-site link or form (top-level navigation)',
      { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' },
    ],
    ['a cross-site <img>', { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Dest': 'image' }],
    [
      'a sibling subdomain (same-site)',
      { 'Sec-Fetch-Site': 'same-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' },
    ],
    [
      "this page's own script (fetch)",
      { 'Sec-Fetch-Site': 'same-origin', 'Sec-Fetch-Mode': 'cors', 'Sec-Fetch-Dest': 'empty' },
    ],
    [
      'an <img> on this origin',
      { 'Sec-Fetch-Site': 'same-origin', 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Dest': 'image' },
    ],
    ['a frame', { 'Sec-Fetch-Site': 'same-origin', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'iframe' }],
    ['a prefetch or prerender', { ...NAVIGATION, 'Sec-Purpose': 'prefetch;prerender' }],
  ])(
    'when GET /auth/oidc/logout comes from %s, then 403 csrf_rejected, nothing is revealed and the session lives on',
    async (_what, headers) => {
      const { cookie } = await ssoLogin(a.service.app, 'gina');
      const res = await oidcLogout(a, cookie, headers);
      expect(res.status).toBe(403);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.text).toContain('Log out with this site&#39;s own logout button');
      expect((await oidcLogout(a, cookie, { ...headers, Accept: 'application/json' })).body.error.code).toBe(
        'csrf_rejected',
      );
      expect(await alive(a, cookie)).toBe(true);
    },
  );

  test('when a browser sends no Fetch Metadata (older ones), then the session ends and the IdP is asked to log out without an id token hint', async () => {
    const { cookie } = await ssoLogin(a.service.app, 'hank');
    const res = await oidcLogout(a, cookie, {});
    expect(res.status).toBe(303);
    const url = new URL(res.headers.location as string);
    expect(url.origin).toBe(idp.issuer);
    expect(url.searchParams.get('client_id')).toBe(idp.clientId);
    expect(url.searchParams.has('id_token_hint')).toBe(false);
    expect(await alive(a, cookie)).toBe(false);
  });

  test('when there is no session, then the navigation lands on the post-login path without asking the IdP anything', async () => {
    const res = await oidcLogout(a, undefined, NAVIGATION);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/');
  });

  test('when the IdP posts a valid logout token for the IdP session, then that session ends on the OTHER instance too', async () => {
    const { cookie } = await ssoLogin(a.service.app, 'bob');
    const sid = idp.lastSid()!;
    expect(await alive(a, cookie)).toBe(true);
    const res = await backchannel(b, await idp.logoutToken({ sid, sub: 'bob' }));
    expect(res.status).toBe(200);
    expect(await alive(a, cookie)).toBe(false);
    expect((await supertest(a.service.app).get('/api/echo').set(CSRF).set('Cookie', cookie)).status).toBe(401);
    const index = [...(await redisDump(prefix)).keys()].filter((k) => k.includes(':oidc-idx:'));
    for (const key of index) expect((await redisDump(prefix)).get(key)).not.toContain('bob');
  });

  test('when a logout token names only the subject, then every session of that user ends, and other users keep theirs', async () => {
    const one = await ssoLogin(a.service.app, 'carol');
    const two = await ssoLogin(b.service.app, 'carol');
    const other = await ssoLogin(a.service.app, 'dave');
    expect((await backchannel(a, await idp.logoutToken({ sub: 'carol' }))).status).toBe(200);
    expect([await alive(a, one.cookie), await alive(b, two.cookie), await alive(a, other.cookie)]).toEqual([
      false,
      false,
      true,
    ]);
  });

  test.each([
    ['signed by another key', { sub: 'erin' }, { key: 'foreign' as const }],
    ['for another audience', { sub: 'erin', aud: 'someone-else' }, undefined],
    ['from another issuer', { sub: 'erin', iss: 'http://evil.example' }, undefined],
    ['without the back-channel event', { sub: 'erin', events: { other: {} } }, undefined],
    ['with a nonce', { sub: 'erin', nonce: 'n' }, undefined],
    ['naming neither sid nor sub', { sub: undefined }, undefined],
    ['without iat', { sub: 'erin', iat: undefined }, undefined],
    ['without jti', { sub: 'erin', jti: undefined }, undefined],
    ['issued long ago', { sub: 'erin', iat: Math.floor(Date.now() / 1000) - 3600 }, undefined],
  ])('when a logout token is %s, then 400 and the session lives on', async (_what, claims, options) => {
    const { cookie } = await ssoLogin(a.service.app, 'erin');
    const res = await backchannel(b, await idp.logoutToken(claims, options));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(await alive(a, cookie)).toBe(true);
  });

  test('when a logout token is replayed (same jti), then the replay is refused', async () => {
    await ssoLogin(a.service.app, 'frank');
    const token = await idp.logoutToken({ sub: 'frank', jti: 'jti-replayed-once' });
    expect((await backchannel(b, token)).status).toBe(200);
    const { cookie } = await ssoLogin(a.service.app, 'frank');
    expect((await backchannel(a, token)).status).toBe(400);
    expect(await alive(a, cookie)).toBe(true);
  });

  test('when the back-channel endpoint is exempt from the CSRF header, then only that exact path is: others still need it', async () => {
    expect((await backchannel(a, undefined)).status).toBe(400);
    expect(
      (await supertest(a.service.app).post(`${BACKCHANNEL}/`).type('form').send({ logout_token: 'x' })).body.error.code,
    ).toBe('csrf_rejected');
    expect((await supertest(a.service.app).post('/auth/logout')).body.error.code).toBe('csrf_rejected');
    expect(
      (await supertest(a.service.app).post('/auth/OIDC/backchannel-logout').type('form').send({ logout_token: 'x' }))
        .body.error.code,
    ).toBe('csrf_rejected');
  });
});
