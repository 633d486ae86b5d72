import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import supertest from 'supertest';
import { startTestIdp, type TestIdp } from '../../helpers/oidc-provider.js';
import { poll } from '../../helpers/wait.js';
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
  startSsoService,
  type CountingUpstream,
  type SsoService,
} from './sso-rig.js';

/**
 * The whole back-channel path with the real provider: the user signs out at the IdP, the IdP posts its
 * logout token to instance B's listening port, and the session made through instance A ends.
 */
describe('single sign-on: the IdP ends its session and the back-channel logout reaches another instance', () => {
  let idp: TestIdp;
  let upstream: CountingUpstream;
  let a: SsoService;
  let b: SsoService;
  let listenerB: Server;
  const prefix = newPrefix();

  beforeAll(async () => {
    // B's port first: the IdP registers the back-channel URI with it before the services know the IdP.
    listenerB = createServer();
    listenerB.listen(0, '127.0.0.1');
    await once(listenerB, 'listening');
    const port = (listenerB.address() as AddressInfo).port;
    idp = await startTestIdp({
      redirectUris: [REDIRECT_URI],
      backchannelLogoutUri: `http://127.0.0.1:${port}/auth/oidc/backchannel-logout`,
    });
    upstream = await startCountingUpstream();
    a = await startSsoService({ idp, upstream: upstream.url, prefix });
    b = await startSsoService({ idp, upstream: upstream.url, prefix });
    listenerB.on('request', b.service.app);
  });
  afterAll(async () => {
    await new Promise((r) => listenerB.close(r));
    await a.close();
    await b.close();
    await upstream.close();
    await idp.close();
    await dropPrefix(prefix);
  });

  test('when the user signs out at the IdP, then the IdP calls B and the session made on A is over', async () => {
    const browser = new IdpBrowser();
    const { preCookie, authorizeUrl } = await startLogin(a.service.app);
    const callback = await idpLogin(authorizeUrl, 'alice', browser);
    const login = await supertest(a.service.app).get(`/auth/oidc/callback${callback.search}`).set('Cookie', preCookie);
    const cookie = sessionCookieOf(login)!;
    expect((await supertest(a.service.app).get('/api/echo').set(CSRF).set('Cookie', cookie)).status).toBe(200);

    await idpEndSession(idp.issuer, browser);

    await poll(
      async () => (await supertest(a.service.app).get('/auth/session').set('Cookie', cookie)).status === 401,
      10_000,
      'the session to end',
    );
    expect((await supertest(a.service.app).get('/api/echo').set(CSRF).set('Cookie', cookie)).status).toBe(401);
    expect(b.logs()).toMatch(/"ended":1[,}].*back-channel logout/);
  });
});
