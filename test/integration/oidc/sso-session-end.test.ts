import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import supertest from 'supertest';
import { startTestIdp, type TestIdp } from '../../helpers/oidc-provider.js';
import { poll } from '../../helpers/wait.js';
import {
  REDIRECT_URI,
  dropPrefix,
  newPrefix,
  ssoLogin,
  startCountingUpstream,
  startSsoService,
  type CountingUpstream,
  type SsoService,
} from './sso-rig.js';

/** A session that ends without a logout (idle timeout): the session-end sweeper revokes its IdP tokens. */
describe('single sign-on: a session that times out loses its IdP tokens too', () => {
  let idp: TestIdp;
  let upstream: CountingUpstream;
  let svc: SsoService;
  const prefix = newPrefix();

  beforeAll(async () => {
    idp = await startTestIdp({ redirectUris: [REDIRECT_URI] });
    upstream = await startCountingUpstream();
    svc = await startSsoService({
      idp,
      upstream: upstream.url,
      prefix,
      env: { SESSION_IDLE_TIMEOUT: '2', SESSION_ABSOLUTE_TIMEOUT: '600', TOKEN_SWEEP_INTERVAL_MS: '200' },
    });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.close();
    await idp.close();
    await dropPrefix(prefix);
  });

  test('when an SSO session idles out, then the sweeper revokes its refresh token at the IdP and sends nothing to TigerGraph', async () => {
    const destroyedBefore = idp.destroyedRefreshTokens();
    const { cookie } = await ssoLogin(svc.service.app, 'alice');
    await poll(async () => idp.destroyedRefreshTokens() > destroyedBefore, 20_000, 'the refresh token to be revoked');
    expect((await supertest(svc.service.app).get('/auth/session').set('Cookie', cookie)).status).toBe(401);
    // The refresh token is the session's "secret": it must never reach the data server's token endpoint.
    expect(upstream.seen).toEqual([]);
  });
});
