import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import supertest from 'supertest';
import { recordFigure } from '../../helpers/figures.js';
import { startTestIdp, type TestIdp } from '../../helpers/oidc-provider.js';
import {
  REDIRECT_URI,
  dropPrefix,
  idpLogin,
  newPrefix,
  startCountingUpstream,
  startLogin,
  startSsoService,
  type CountingUpstream,
  type SsoService,
} from '../oidc/sso-rig.js';

/**
 * Issue 42, the fourth audit (docs/architecture.md, "Bounded per principal and per address"): a code
 * exchange is set off by a callback anyone can make (a pre-login cookie is free), from any address, so
 * the service's calls to the IdP need a per-origin connection cap like its calls to TigerGraph. The test
 * IdP answers its token endpoint 300 ms late, so callbacks that arrive together overlap there, and counts
 * the connections the service's OIDC libraries called over. Before, openid-client used Node's global
 * fetch, which has no per-origin cap: one connection per concurrent callback.
 */
const CAP = 2;
const LOGINS = 8;

describe('hostile clients: many single sign-on callbacks at once', () => {
  let idp: TestIdp;
  let upstream: CountingUpstream;
  let svc: SsoService;
  const prefix = newPrefix();

  beforeAll(async () => {
    idp = await startTestIdp({ redirectUris: [REDIRECT_URI], tokenDelayMs: 300 });
    upstream = await startCountingUpstream();
    svc = await startSsoService({ idp, upstream: upstream.url, prefix, env: { OIDC_CONNECTIONS: String(CAP) } });
  });
  afterAll(async () => {
    await svc?.close();
    await upstream?.close();
    await idp?.close();
    await dropPrefix(prefix);
  });

  it('when 8 callbacks arrive together, then the service holds at most OIDC_CONNECTIONS connections to the IdP, and every login completes', async () => {
    const app = svc.service.app;
    // Each person's IdP side first, one at a time (the test's own requests, not counted): 8 codes in hand.
    const pending: Array<{ preCookie: string; search: string }> = [];
    for (let i = 0; i < LOGINS; i++) {
      const { preCookie, authorizeUrl } = await startLogin(app);
      pending.push({ preCookie, search: (await idpLogin(authorizeUrl, `person${i}`)).search });
    }
    const exchangesBefore = idp.tokenRequests();
    const answers = await Promise.all(
      pending.map(({ preCookie, search }) =>
        supertest(app).get(`/auth/oidc/callback${search}`).set('Cookie', preCookie),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(Array(LOGINS).fill(303));
    // The set-up holds: each callback cost one code exchange at the IdP.
    expect(idp.tokenRequests() - exchangesBefore).toBe(LOGINS);
    const { peak } = idp.relyingPartyConnections();
    recordFigure(
      `${LOGINS} concurrent SSO callbacks, token endpoint 300 ms: at most ${peak} connections to the IdP open at once (OIDC_CONNECTIONS ${CAP})`,
    );
    expect(peak).toBeGreaterThanOrEqual(1);
    expect(peak).toBeLessThanOrEqual(CAP);
  });
});
