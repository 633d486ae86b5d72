import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import supertest from 'supertest';
import { startTestIdp, type TestIdp } from '../../helpers/oidc-provider.js';
import {
  REDIRECT_URI,
  dropPrefix,
  newPrefix,
  ssoLogin,
  startCountingUpstream,
  startSsoService,
  type CountingUpstream,
  type SsoService,
} from '../oidc/sso-rig.js';

/**
 * Issue 42, the fourth audit: `POST /auth/oidc/backchannel-logout` is open to anyone (server to server, no
 * CSRF header, no session) and every post costs a signature check, an unknown key id a JWKS fetch. It is
 * counted per address (BACKCHANNEL_ADDRESS_BUDGET, the login budget's engine, in Redis) before the token is
 * looked at; a token the IdP signed is taken back, so only forged, replayed or malformed ones spend it.
 * Before, nothing limited it: every one of a flood was verified.
 */
const BUDGET = 5;
const BACKCHANNEL = '/auth/oidc/backchannel-logout';

describe('hostile client: a flood of back-channel logouts', () => {
  let idp: TestIdp;
  let upstream: CountingUpstream;
  let svc: SsoService;
  const prefix = newPrefix();

  beforeAll(async () => {
    idp = await startTestIdp({ redirectUris: [REDIRECT_URI] });
    upstream = await startCountingUpstream();
    // TRUST_PROXY=loopback: X-Forwarded-For names each test client's address.
    svc = await startSsoService({
      idp,
      upstream: upstream.url,
      prefix,
      env: {
        BACKCHANNEL_ADDRESS_BUDGET: String(BUDGET),
        TRUST_PROXY: 'loopback',
        // Not a timeout test: a count in the shared Redis, slow behind another file's bulk work on a busy CI
        // machine, must not meet the 800 ms default and answer 503 (it did once in 20 posts).
        REDIS_COMMAND_TIMEOUT_MS: '4000',
      },
    });
  });
  afterAll(async () => {
    await svc?.close();
    await upstream?.close();
    await idp?.close();
    await dropPrefix(prefix);
  });

  const post = (from: string, token: string) =>
    supertest(svc.service.app)
      .post(BACKCHANNEL)
      .type('form')
      .set('X-Forwarded-For', from)
      .send({ logout_token: token });

  it('when one address floods forged logout tokens, then it gets 429 rate_limited with Retry-After beyond the budget, and the IdP elsewhere still ends sessions', async () => {
    const flooder = '198.51.100.7';
    const forged = await idp.logoutToken({ sub: 'alice' }, { key: 'foreign' });
    const statuses: number[] = [];
    let limited: supertest.Response | undefined;
    for (let i = 0; i < 4 * BUDGET; i++) {
      const res = await post(flooder, forged);
      statuses.push(res.status);
      if (res.status === 429) limited ??= res;
    }
    expect(statuses).toEqual([...Array<number>(BUDGET).fill(400), ...Array<number>(3 * BUDGET).fill(429)]);
    expect(limited!.body.error.code).toBe('rate_limited');
    expect(Number(limited!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const metrics = await svc.service.metrics.registry.getSingleMetricAsString('tgbff_login_budget_limited_total');
    expect(metrics).toContain(`tgbff_login_budget_limited_total{scope="backchannel_address"} ${3 * BUDGET}`);
    expect(svc.audit()).toContain('"limit":"login_budget","scope":"address","route":"backchannel"');

    // The IdP, from its own address, is not refused: its logout ends alice's session.
    const { cookie } = await ssoLogin(svc.service.app, 'alice');
    expect((await post('203.0.113.1', await idp.logoutToken({ sub: 'alice' }))).status).toBe(200);
    expect((await supertest(svc.service.app).get('/auth/session').set('Cookie', cookie)).status).toBe(401);
  });

  it("when the IdP's own logout tokens come one after another, then none spends the budget: more than it all answer 200", async () => {
    const statuses = [];
    for (let i = 0; i < 2 * BUDGET; i++)
      statuses.push((await post('203.0.113.2', await idp.logoutToken({ sub: `nobody-${i}` }))).status);
    expect(statuses).toEqual(Array<number>(2 * BUDGET).fill(200));
  });
});
