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
  ssoLogin,
  startCountingUpstream,
  startSsoService,
  type CountingUpstream,
  type SsoService,
} from './sso-rig.js';

/**
 * Refresh of the IdP access token: the services' clock is moved forward by hand (the IdP keeps real time),
 * so "shortly before expiry" is reached without waiting. Two instances share one Redis prefix.
 */
describe('single sign-on: refresh before expiry, once per session across instances', () => {
  let idp: TestIdp;
  let upstream: CountingUpstream;
  let a: SsoService;
  let b: SsoService;
  const prefix = newPrefix();
  let offset = 0;
  const now = () => Date.now() + offset;
  const TTL = 120;

  beforeAll(async () => {
    idp = await startTestIdp({ redirectUris: [REDIRECT_URI], accessTokenTtl: TTL, rotateRefreshTokens: true });
    upstream = await startCountingUpstream();
    const env = { OIDC_REFRESH_BEFORE: '30' };
    a = await startSsoService({ idp, upstream: upstream.url, prefix, env, now });
    b = await startSsoService({ idp, upstream: upstream.url, prefix, env, now });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await upstream.close();
    await idp.close();
    await dropPrefix(prefix);
  });

  const relay = (svc: SsoService, cookie: string) =>
    supertest(svc.service.app).get('/api/echo').set(CSRF).set('Cookie', cookie);

  test('when the token is due and 24 requests arrive on two instances at once, then the IdP sees exactly one refresh and all use the new token', async () => {
    const { cookie } = await ssoLogin(a.service.app, 'alice');
    upstream.seen.length = 0;
    expect((await relay(a, cookie)).status).toBe(200);
    const first = upstream.seen[0]!;
    const grantsBefore = idp.refreshGrants();

    offset += (TTL - 20) * 1000; // 20 s left: inside the 30 s refresh margin, still valid
    upstream.seen.length = 0;
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => relay(i % 2 ? a : b, cookie)));
    expect(answers.map((r) => r.status)).toEqual(Array(24).fill(200));
    expect(idp.refreshGrants() - grantsBefore).toBe(1);
    const after = new Set(upstream.seen);
    // Requests that found the old token still fresh enough went out with it; at least the later ones carry the new one.
    const fresh = [...after].filter((t) => t !== first);
    expect(fresh).toHaveLength(1);
    expect(jwtPayload(fresh[0]!)).toMatchObject({ sub: 'alice', aud: idp.audience });

    // Now fresh: no further refresh, every request carries the new token.
    upstream.seen.length = 0;
    await Promise.all([relay(a, cookie), relay(b, cookie)]);
    expect(new Set(upstream.seen)).toEqual(new Set(fresh));
    expect(idp.refreshGrants() - grantsBefore).toBe(1);
  });

  test('when the IdP rotates the refresh token, then the next refresh uses the new one (kept sealed with the token state)', async () => {
    const { cookie } = await ssoLogin(a.service.app, 'bob');
    const grantsBefore = idp.refreshGrants();
    for (let round = 1; round <= 2; round++) {
      offset += (TTL - 20) * 1000;
      expect((await relay(round === 1 ? a : b, cookie)).status).toBe(200);
      expect(idp.refreshGrants() - grantsBefore).toBe(round);
    }
    // The rotated refresh token rides in the token state's sealed `w` field, never in clear.
    const states = [...(await redisDump(prefix)).entries()].filter(([k]) => k.includes(':tok:'));
    expect(states.some(([, v]) => /"w":"v2\./.test(v))).toBe(true);
  });

  test('when the IdP refuses the refresh, then the request is 401 session_expired and the session is over', async () => {
    const { cookie } = await ssoLogin(a.service.app, 'carol');
    await idp.destroyAllRefreshTokens();
    offset += (TTL - 20) * 1000;
    const res = await relay(b, cookie);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('session_expired');
    const session = await supertest(a.service.app).get('/auth/session').set('Cookie', cookie);
    expect(session.status).toBe(401);
  });

  test('when the IdP is down at refresh time but the token still works, then the request goes out with it (503 only once it has expired)', async () => {
    const { cookie } = await ssoLogin(a.service.app, 'dave');
    offset += (TTL - 20) * 1000;
    await idp.stop();
    try {
      expect((await relay(a, cookie)).status).toBe(200);
      offset += 30_000; // expired now
      const res = await relay(a, cookie);
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('idp_unavailable');
    } finally {
      await idp.restart();
    }
  });
});
