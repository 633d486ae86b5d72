import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { performance } from 'node:perf_hooks';
import supertest from 'supertest';
import { startTestIdp, type TestIdp } from '../../helpers/oidc-provider.js';
import { poll } from '../../helpers/wait.js';
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
import { droppedBy, servedFromCaches } from '../multi-instance/cache-metrics.js';
import { recordFigure } from '../../helpers/figures.js';

/**
 * Service processes (dist/main.js, the real start-up path) on one Redis, the IdP ending a session through B;
 * C is a third replica, for the session cache (warm on A and C while B ends the session).
 */
describe('single sign-on across service processes', () => {
  let idp: TestIdp;
  let upstream: CountingUpstream;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let c: ServiceProcess;
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
    [a, b, c] = await Promise.all([
      startServiceProcess(env),
      startServiceProcess({ ...env, PORT: String(portB) }),
      startServiceProcess(env),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop(), c?.stop()]);
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

  test('when a session warm in the caches of A and C ends by back-channel logout at B, then A and C drop it at once and refuse it', async () => {
    const browser = new IdpBrowser();
    const { preCookie, authorizeUrl } = await startLogin(a.url);
    const callback = await idpLogin(authorizeUrl, 'carol', browser);
    const login = await supertest(a.url).get(`/auth/oidc/callback${callback.search}`).set('Cookie', preCookie);
    expect(login.status).toBe(303);
    const cookie = sessionCookieOf(login)!;
    const echo = async (at: ServiceProcess) =>
      (await supertest(at.url).get('/api/echo').set(CSRF).set('Cookie', cookie)).status;
    const mark = upstream.seen.length;
    await servedFromCaches([a, c], echo);
    const ended = new Set(upstream.seen.slice(mark));
    expect(ended.size).toBeGreaterThan(0);

    await idpEndSession(idp.issuer, browser);
    // Measured from the IdP's end-session answer (it calls B's back-channel endpoint on the way).
    const tookMs = await droppedBy([a, c], performance.now());
    recordFigure(
      `back-channel logout at B: A and C caches empty ${tookMs.toFixed(1)} ms after the IdP's end-session page`,
    );

    const after = upstream.seen.length;
    for (const at of [a, c, b]) expect(await echo(at)).toBe(401);
    expect(upstream.seen.slice(after).filter((auth) => ended.has(auth))).toEqual([]);
  });
});
