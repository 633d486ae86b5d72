import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import supertest from 'supertest';
import { startTestIdp, type TestIdp } from '../../helpers/oidc-provider.js';
import { poll } from '../../helpers/poll.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import {
  CSRF,
  IdpBrowser,
  REDIRECT_URI,
  dropPrefix,
  idpEndSession,
  idpLogin,
  newPrefix,
  sessionCookieOf,
  startCountingUpstream,
  startLogin,
  type CountingUpstream,
} from './sso-rig.js';
import { freePort } from '../../helpers/ports.js';

/** Two service processes (dist/main.js, the real start-up path) on one Redis, the IdP ending a session through B. */
describe('single sign-on across two service processes', () => {
  let idp: TestIdp;
  let upstream: CountingUpstream;
  let a: ServiceProcess;
  let b: ServiceProcess;
  const prefix = newPrefix();

  beforeAll(async () => {
    const portB = await freePort();
    idp = await startTestIdp({
      redirectUris: [REDIRECT_URI],
      backchannelLogoutUri: `http://127.0.0.1:${portB}/auth/oidc/backchannel-logout`,
    });
    upstream = await startCountingUpstream();
    const env = {
      NODE_ENV: 'test',
      TG_RESTPP_URL: upstream.url,
      TG_VERSION: '3.9.3',
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_PREFIX: prefix,
      SESSION_SECRET: 'a-session-secret-shared-by-the-processes-0123456789',
      SESSION_ENCRYPTION_KEYS: 'k1:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
      COOKIE_SECURE: 'false',
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: idp.clientId,
      OIDC_CLIENT_SECRET: idp.clientSecret,
      OIDC_REDIRECT_URI: REDIRECT_URI,
      OIDC_AUDIENCE: idp.audience,
    };
    [a, b] = await Promise.all([startServiceProcess(env), startServiceProcess({ ...env, PORT: String(portB) })]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await upstream.close();
    await idp.close();
    await dropPrefix(prefix);
  });

  test('when a user logs in on A and signs out at the IdP, then B receives the back-channel logout and the session is over on A', async () => {
    const browser = new IdpBrowser();
    const { preCookie, authorizeUrl } = await startLogin(a.url);
    const callback = await idpLogin(authorizeUrl, 'alice', browser);
    const login = await supertest(a.url).get(`/auth/oidc/callback${callback.search}`).set('Cookie', preCookie);
    expect(login.status).toBe(303);
    const cookie = sessionCookieOf(login)!;
    expect((await supertest(b.url).get('/api/echo').set(CSRF).set('Cookie', cookie)).status).toBe(200);

    await idpEndSession(idp.issuer, browser);

    await poll(
      async () => (await supertest(a.url).get('/auth/session').set('Cookie', cookie)).status === 401,
      10_000,
      'the session to end',
    );
    // Log lines are written in batches (LOG_FLUSH_MS).
    await poll(
      async () => /"ended":1[,}][^\n]*back-channel logout/.test(b.output()),
      5000,
      "B's back-channel log line",
    );
    expect(a.output() + b.output()).not.toContain(idp.clientSecret);
  });
});
