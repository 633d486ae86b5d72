import { createLocalJWKSet, jwtVerify } from 'jose';
import { manualClock } from '../../helpers/manual-clock.js';
import { bearerOf, Browser, decodeJwt, ssoLogin, startOidcRig, type OidcRig } from './oidc-rig.js';

/**
 * Single sign-on against a real OpenID provider (oidc-provider, in-process): the full login through the
 * redirects by hand, the IdP access token relayed as the bearer, refreshed shortly before expiry exactly
 * once across two instances under concurrent requests, and a refused refresh ending the session.
 */
import { jest } from '@jest/globals';

jest.setTimeout(60_000);

describe('single sign-on: relay and refresh of the IdP access token', () => {
  const clock = manualClock();
  let rig: OidcRig;

  beforeAll(async () => {
    rig = await startOidcRig({
      idp: { accessTokenTtl: 300, accessClaims: { graph: 'social' } },
      env: { OIDC_REFRESH_BEFORE: '60' },
      now: clock.now,
      instances: 2,
    });
  });
  afterAll(() => rig?.close());

  it('logs in through the IdP, says so on /auth/session, and relays the IdP JWT (never showing it to the browser)', async () => {
    const browser = new Browser(rig.instances[0]!.url);
    const { answer } = await ssoLogin(browser, 'alice', '?return_to=%2Fapp%2Fgraphs%3Fx%3D1');
    expect(answer.status).toBe(303);
    expect(answer.location).toBe(`${rig.instances[0]!.url}/app/graphs?x=1`);
    const cookieName = rig.instances[0]!.config.session.cookieName;
    expect(browser.bffCookies().get(cookieName)).toBeDefined();
    expect(browser.bffCookies().has(`${cookieName}-sso`)).toBe(false);

    const session = await browser.api('/auth/session');
    expect(session.status).toBe(200);
    expect(session.json()).toEqual({
      authenticated: true,
      graph: 'social',
      login: 'oidc',
      sub: 'alice',
      name: 'User alice',
      tokenExpiresAt: expect.any(String),
      sessionExpiresAt: expect.any(String),
    });

    const relayed = await browser.api('/api/echo');
    expect(relayed.status).toBe(200);
    const jwt = bearerOf(rig.upstream.authorizations.at(-1)!);
    const { payload } = await jwtVerify(jwt, createLocalJWKSet(rig.idp.publicJwks), { issuer: rig.idp.issuer, audience: rig.idp.audience });
    expect(payload.sub).toBe('alice');
    expect(payload.graph).toBe('social');

    // Nothing of the IdP tokens reached the browser: not in the answers, not in a cookie.
    for (const text of [answer.text, session.text, relayed.text, [...browser.bffCookies().values()].join(';')]) {
      expect(text).not.toContain(jwt);
      expect(text).not.toContain(jwt.split('.')[1]!);
    }
    // And the session record holds it sealed, not in plain text.
    const records = await Promise.all((await rig.sessionKeys()).map((k) => rig.redis.get(k)));
    const tokenRecords = await Promise.all((await rig.redis.keys(`${rig.prefix}tok:*`)).map((k) => rig.redis.hgetall(k)));
    expect(JSON.stringify([records, tokenRecords])).not.toContain(jwt.split('.')[1]!);
  });

  it('refreshes the access token shortly before expiry exactly once under concurrent requests on two instances', async () => {
    const a = new Browser(rig.instances[0]!.url);
    await ssoLogin(a, 'carol');
    expect((await a.api('/api/echo')).status).toBe(200);
    const before = bearerOf(rig.upstream.authorizations.at(-1)!);
    const grantsBefore = rig.idp.refreshGrants();

    // The same browser's cookie sent to both instances, like a balancer spreading its requests.
    const b = new Browser(rig.instances[1]!.url);
    for (const [k, v] of a.bffCookies()) b.bffCookies().set(k, v);

    clock.advance(250_000); // 50 s left of 300: inside OIDC_REFRESH_BEFORE=60
    const seenFrom = rig.upstream.authorizations.length;
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).api('/api/echo')));
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(rig.idp.refreshGrants() - grantsBefore).toBe(1);
    const used = new Set(rig.upstream.authorizations.slice(seenFrom).map(bearerOf));
    expect(used.size).toBe(1);
    const after = [...used][0]!;
    expect(after).not.toBe(before);
    expect(decodeJwt(after).sub).toBe('carol');

    // The new token's expiry counts from now (the service's clock) plus the lifetime the IdP gave.
    const session = (await a.api('/auth/session')).json() as { tokenExpiresAt: string };
    const expiresAt = Date.parse(session.tokenExpiresAt);
    expect(Math.abs(expiresAt - (clock.now() + 300_000))).toBeLessThan(5_000);
  });

  it('a refresh the IdP refuses ends the session: 401 session_expired, then no session', async () => {
    const browser = new Browser(rig.instances[0]!.url);
    await ssoLogin(browser, 'dave');
    expect((await browser.api('/api/echo')).status).toBe(200);
    await rig.idp.destroyAllRefreshTokens();
    clock.advance(250_000);
    const refused = await browser.api('/api/echo');
    expect(refused.status).toBe(401);
    expect(refused.json()).toMatchObject({ error: { code: 'session_expired' } });
    const session = await browser.api('/auth/session');
    expect(session.status).toBe(401);
  });
});
