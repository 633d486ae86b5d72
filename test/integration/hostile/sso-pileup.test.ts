import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import supertest from 'supertest';
import { startTestIdp, type TestIdp } from '../../helpers/oidc-provider.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import {
  CSRF,
  REDIRECT_URI,
  dropPrefix,
  newPrefix,
  ssoLogin,
  startCountingUpstream,
  startLogin,
  type CountingUpstream,
} from '../oidc/sso-rig.js';
import { assertNoEscape } from './hostile-rig.js';

/**
 * Issue 21, items 2 and 4 for single sign-on, against a real service process and a real IdP (oidc-provider
 * on loopback): one IdP subject holds at most SESSIONS_PER_CREDENTIAL sessions, and callbacks, each of
 * which costs an IdP code exchange for anyone holding a pre-login cookie (anyone can get one), spend the
 * address's login budget. Before the fix every SSO login of one user stayed live and every callback went
 * to the IdP's token endpoint.
 */
const CAP = 2;
const BUDGET = 8;

describe('hostile client: one IdP user, many single sign-ons', () => {
  let idp: TestIdp;
  let upstream: CountingUpstream;
  let bff: ServiceProcess;
  const prefix = newPrefix();

  beforeAll(async () => {
    idp = await startTestIdp({ redirectUris: [REDIRECT_URI] });
    upstream = await startCountingUpstream();
    bff = await startServiceProcess(
      {
        NODE_ENV: 'test',
        TG_RESTPP_URL: upstream.url,
        TG_VERSION: '3.9.3',
        REDIS_URL: 'redis://127.0.0.1:6379',
        REDIS_PREFIX: prefix,
        SESSION_SECRET: 'a-session-secret-for-the-sso-pileup-test-0123456789',
        SESSION_ENCRYPTION_KEYS: 'k1:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
        COOKIE_SECURE: 'false',
        LOG_FLUSH_MS: '0',
        OIDC_ISSUER: idp.issuer,
        OIDC_CLIENT_ID: idp.clientId,
        OIDC_CLIENT_SECRET: idp.clientSecret,
        OIDC_REDIRECT_URI: REDIRECT_URI,
        OIDC_AUDIENCE: idp.audience,
        SESSIONS_PER_CREDENTIAL: String(CAP),
        LOGIN_ADDRESS_BUDGET: String(BUDGET),
      },
      30_000,
    );
  });
  afterAll(async () => {
    await bff?.kill();
    await upstream?.close();
    await idp?.close();
    await dropPrefix(prefix);
  });

  const status = async (cookie: string) =>
    (await supertest(bff.url).get('/api/echo').set(CSRF).set('Cookie', cookie)).status;

  it('when alice signs on 4 times, then only her 2 newest sessions live and the back-channel index holds no more than those', async () => {
    const logins = [];
    for (let i = 0; i < 4; i++) logins.push(await ssoLogin(bff.url, 'alice'));
    const other = await ssoLogin(bff.url, 'bob');
    expect(await Promise.all(logins.map((l) => status(l.cookie)))).toEqual([401, 401, 200, 200]);
    expect(await status(other.cookie)).toBe(200);
    const redis = new Redis('redis://127.0.0.1:6379');
    try {
      const index = await redis.keys(`${prefix}oidc-idx:{sub:*`);
      const sizes = await Promise.all(index.map((k) => redis.scard(k)));
      expect(sizes.sort()).toEqual([1, CAP]);
    } finally {
      redis.disconnect();
    }
    assertNoEscape(bff);
  });

  it('when one address replays callbacks with a real pre-login cookie and made-up codes, then the IdP is asked at most the login budget', async () => {
    const { preCookie, authorizeUrl } = await startLogin(bff.url);
    const state = new URL(authorizeUrl).searchParams.get('state')!;
    const before = idp.tokenRequests();
    const answers: number[] = [];
    for (let i = 0; i < 3 * BUDGET; i++) {
      const res = await supertest(bff.url)
        .get(`/auth/oidc/callback?code=made-up-${i}&state=${state}`)
        .set('Cookie', preCookie)
        .set('Accept', 'application/json');
      answers.push(res.status);
    }
    // The first test's 5 sign-ons spent 5 of this address's budget within the window.
    expect(answers.filter((s) => s === 429).length).toBeGreaterThanOrEqual(3 * BUDGET - BUDGET);
    expect(idp.tokenRequests() - before).toBeLessThanOrEqual(BUDGET);
    assertNoEscape(bff);
  });
});
