import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import supertest from 'supertest';
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

  test('when an SSO session logs out, then it ends locally, the refresh token is revoked at the IdP, and the answer says where to end the IdP session', async () => {
    const { cookie } = await ssoLogin(a.service.app, 'alice');
    const destroyedBefore = idp.destroyedRefreshTokens();
    const res = await supertest(a.service.app).post('/auth/logout').set(CSRF).set('Cookie', cookie);
    expect(res.status).toBe(200);
    const url = new URL(res.body.logoutUrl as string);
    expect(url.origin).toBe(idp.issuer);
    expect(url.searchParams.get('post_logout_redirect_uri')).toBe('http://bff.test/');
    expect(url.searchParams.get('client_id')).toBe(idp.clientId);
    expect(url.searchParams.get('id_token_hint')?.split('.')).toHaveLength(3);
    expect(idp.destroyedRefreshTokens()).toBeGreaterThan(destroyedBefore);
    expect(await alive(a, cookie)).toBe(false);
    expect((await supertest(b.service.app).get('/api/echo').set(CSRF).set('Cookie', cookie)).status).toBe(401);
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
