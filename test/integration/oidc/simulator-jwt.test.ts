import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import supertest from 'supertest';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle, SimulatorOptions } from '../../../src/simulator/types.js';
import { startTestIdp, type TestIdp } from '../../helpers/oidc-provider.js';
import { CSRF, REDIRECT_URI, dropPrefix, newPrefix, ssoLogin, startSsoService, type SsoService } from './sso-rig.js';

/**
 * End to end: the IdP's access token relayed to the simulator, which verifies it as TigerGraph does
 * (Security.JWT.RSA.PublicKey = the IdP's JWKS, Security.JWT.Audience): the simulator's `jwt` option.
 */
describe('single sign-on end to end against the simulator', () => {
  let idp: TestIdp;
  let sim: SimulatorHandle;
  let svc: SsoService;
  const prefix = newPrefix();

  beforeAll(async () => {
    idp = await startTestIdp({ redirectUris: [REDIRECT_URI], accessClaims: { graph: 'social' } });
    const options = {
      // External JWTs are a 3.10+ feature; the simulator refuses the option on older versions.
      version: '3.11.0',
      users: [{ name: 'alice', password: 'not-used-by-sso', graphs: ['social'] }],
      jwt: { rsaPublicKey: JSON.stringify(idp.publicJwks), audience: idp.audience },
    };
    sim = await startSimulator(options as unknown as SimulatorOptions);
    svc = await startSsoService({ idp, upstream: sim.restppUrl, prefix, env: { TG_VERSION: sim.version } });
  });
  afterAll(async () => {
    await svc?.close();
    await sim?.close();
    await idp?.close();
    await dropPrefix(prefix);
  });

  test('when a user signed in with the IdP calls /api, then the simulator accepts the relayed JWT as that user', async () => {
    const { cookie } = await ssoLogin(svc.service.app, 'alice');
    const res = await supertest(svc.service.app)
      .get('/api/graph/social/vertices/Person')
      .set(CSRF)
      .set('Cookie', cookie);
    expect(res.status).toBe(200);
  });

  test('when the IdP user is unknown to TigerGraph, then the relay passes the data server refusal on (no session credential to re-mint with)', async () => {
    const { cookie } = await ssoLogin(svc.service.app, 'mallory');
    const res = await supertest(svc.service.app)
      .get('/api/graph/social/vertices/Person')
      .set(CSRF)
      .set('Cookie', cookie);
    expect([401, 403]).toContain(res.status);
  });
});
