import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import supertest from 'supertest';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle } from '../../../src/simulator/types.js';
import { startTestIdp, type TestIdp } from '../../helpers/oidc-provider.js';
import { until } from '../../helpers/wait.js';
import { basic } from '../admin/admin-harness.js';
import {
  CSRF,
  REDIRECT_URI,
  dropPrefix,
  newPrefix,
  ssoLogin,
  startCountingUpstream,
  startSsoService,
  type CountingUpstream,
  type SsoService,
} from './sso-rig.js';

/**
 * Issue 40 for single sign-on: the principal is the IdP subject. A person's SSO sessions list and end each
 * other, and the operator's switch names them by subject; their IdP tokens are revoked as at a logout.
 */
describe('single sign-on: a person’s sessions by IdP subject', () => {
  let idp: TestIdp;
  let upstream: CountingUpstream;
  let sim: SimulatorHandle;
  let svc: SsoService;
  const prefix = newPrefix();

  beforeAll(async () => {
    idp = await startTestIdp({ redirectUris: [REDIRECT_URI] });
    upstream = await startCountingUpstream();
    // The admin server the operator's credentials are checked against.
    sim = await startSimulator({ version: '3.9.3' });
    svc = await startSsoService({
      idp,
      upstream: upstream.url,
      prefix,
      gsqlUrl: sim.gsqlUrl,
      env: { ADMIN_ROUTES: 'true', TG_GSQL_URL: sim.gsqlUrl, LOGIN_ADDRESS_BUDGET: '1000' },
    });
  });
  afterAll(async () => {
    await svc?.close();
    await sim?.close();
    await upstream?.close();
    await idp?.close();
    await dropPrefix(prefix);
  });

  const app = () => svc.service.app;

  test('when carol signs in twice, then each session lists both as oidc, one ends the other, and the operator’s switch by subject ends the rest with their IdP tokens revoked', async () => {
    const one = (await ssoLogin(app(), 'carol')).cookie;
    const two = (await ssoLogin(app(), 'carol')).cookie;
    const dave = (await ssoLogin(app(), 'dave')).cookie;
    const listed = await supertest(app()).get('/auth/sessions').set('Cookie', one);
    expect(listed.status).toBe(200);
    const sessions = listed.body.sessions as Array<{ id: string; current: boolean; login: string }>;
    expect(sessions.map((s) => s.login)).toEqual(['oidc', 'oidc']);
    const handleOfTwo = sessions.find((s) => !s.current)!.id;
    // dave is another principal: carol's handle is not his to end.
    expect((await supertest(app()).delete(`/auth/sessions/${handleOfTwo}`).set(CSRF).set('Cookie', dave)).status).toBe(
      404,
    );
    const revokedBefore = idp.destroyedRefreshTokens();
    expect((await supertest(app()).delete(`/auth/sessions/${handleOfTwo}`).set(CSRF).set('Cookie', one)).status).toBe(
      204,
    );
    expect((await supertest(app()).get('/auth/session').set('Cookie', two)).body.error.code).toBe('session_ended');
    await until(
      'the ended session’s refresh token revoked at the IdP',
      () => idp.destroyedRefreshTokens() > revokedBefore,
    );

    const three = (await ssoLogin(app(), 'carol')).cookie;
    const ended = await supertest(app())
      .post('/admin/sessions/end')
      .set(CSRF)
      .set('Authorization', basic('tigergraph', 'tigergraph'))
      .send({ subject: 'carol' });
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({ ended: 2 });
    for (const cookie of [one, three])
      expect((await supertest(app()).get('/auth/session').set('Cookie', cookie)).body.error.code).toBe('session_ended');
    expect((await supertest(app()).get('/auth/session').set('Cookie', dave)).status).toBe(200);
    expect(svc.audit()).toContain('"reason":"operator"');
  });
});
