import { jest } from '@jest/globals';
import { BFF_ORIGIN, Browser, CSRF, decodeJwt, ssoLogin, startOidcRig, type OidcRig } from './zz-tmp-rig.js';

/**
 * Ending single sign-on sessions: logout here (local always, tokens revoked at the IdP, the IdP's
 * end-session URL for the SPA) and back-channel logout from the IdP, which ends the sessions of that
 * IdP session or subject on whichever instance they live (two instances on one Redis prefix).
 */
jest.setTimeout(15_000);

describe('single sign-on: logout and back-channel logout', () => {
  let rig: OidcRig;
  const on = (i: number) => new Browser(rig.instances[i]!.url);
  const backchannel = (i: number, logoutToken: string | undefined, headers: Record<string, string> = {}) =>
    fetch(`${rig.instances[i]!.url}/auth/oidc/backchannel-logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
      body: logoutToken === undefined ? '' : new URLSearchParams({ logout_token: logoutToken }).toString(),
    });
  const loggedIn = async (b: Browser) => (await b.api('/auth/session')).status === 200;
  /** The IdP session id of a browser's sign-on, read from the id token the logout URL carries. */
  const idpSidOf = async (user: string): Promise<{ browser: Browser; sid: string }> => {
    // A throwaway login whose logout URL reveals its id token; then a real one in a new browser.
    const browser = on(0);
    await ssoLogin(browser, user);
    const idx = await rig.redis.keys(`${rig.prefix}oidc-idx:*`);
    expect(idx.length).toBeGreaterThan(0);
    const record = (await Promise.all((await rig.sessionKeys()).map((k) => rig.redis.get(k)))).map((r) => JSON.parse(r!) as { tg?: { oidc?: { sub: string; idpSid?: string } } });
    const mine = record.filter((r) => r.tg?.oidc?.sub === user).map((r) => r.tg!.oidc!.idpSid!);
    return { browser, sid: mine.at(-1)! };
  };

  beforeAll(async () => {
    rig = await startOidcRig({ instances: 2 });
  });
  afterAll(() => rig?.close());

  it('logout ends the session here, revokes the refresh token at the IdP and answers where to end the IdP session', async () => {
    const browser = on(0);
    await ssoLogin(browser, 'erin');
    expect((await browser.api('/api/echo')).status).toBe(200);
    const cookieName = rig.instances[0]!.config.session.cookieName;
    const sessionCookie = browser.bffCookies().get(cookieName)!;
    const destroyedBefore = rig.idp.destroyedRefreshTokens();
    const idxBefore = await rig.redis.keys(`${rig.prefix}oidc-idx:*`);
    const membersBefore = (await Promise.all(idxBefore.map((k) => rig.redis.smembers(k)))).flat();

    const out = await browser.api('/auth/logout', 'POST');
    expect(out.status).toBe(200);
    expect(out.headers.get('cache-control')).toContain('no-store');
    const { logoutUrl } = out.json() as { logoutUrl: string };
    const url = new URL(logoutUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${rig.idp.issuer}/session/end`);
    expect(url.searchParams.get('post_logout_redirect_uri')).toBe(`${BFF_ORIGIN}/`);
    expect(url.searchParams.get('client_id')).toBe(rig.idp.clientId);
    const hint = decodeJwt(url.searchParams.get('id_token_hint')!);
    expect(hint).toMatchObject({ sub: 'erin', aud: rig.idp.clientId, iss: rig.idp.issuer });

    expect(rig.idp.destroyedRefreshTokens()).toBe(destroyedBefore + 1);
    expect(browser.bffCookies().has(cookieName)).toBe(false);
    const replay = on(0);
    replay.bffCookies().set(cookieName, sessionCookie);
    expect(await loggedIn(replay)).toBe(false);
    // The back-channel index no longer names the ended session.
    const idxAfter = await rig.redis.keys(`${rig.prefix}oidc-idx:*`);
    const membersAfter = (await Promise.all(idxAfter.map((k) => rig.redis.smembers(k)))).flat();
    expect(membersAfter.length).toBe(membersBefore.length - 2); // its sub and its sid entries

    // The IdP accepts the URL: it asks the user to confirm ending the IdP session.
    const page = await browser.request(logoutUrl);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/logout/i);
  });

  it('a back-channel logout by IdP session id, received by another instance, ends that session only', async () => {
    const { browser: first, sid } = await idpSidOf('frank');
    const second = on(0);
    await ssoLogin(second, 'frank'); // another browser: another IdP session, same subject
    expect(await loggedIn(first)).toBe(true);
    expect(await loggedIn(second)).toBe(true);

    const res = await backchannel(1, await rig.idp.logoutToken({ sid }));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toContain('no-store');
    expect(await loggedIn(first)).toBe(false);
    expect((await first.api('/api/echo')).status).toBe(401);
    expect(await loggedIn(second)).toBe(true);
  });

  it('a back-channel logout by subject ends every session of that user, on every instance', async () => {
    const a = on(0);
    const b = on(1);
    const other = on(0);
    await ssoLogin(a, 'grace');
    await ssoLogin(b, 'grace');
    await ssoLogin(other, 'heidi');
    const res = await backchannel(1, await rig.idp.logoutToken({ sub: 'grace' }));
    expect(res.status).toBe(200);
    expect(await loggedIn(a)).toBe(false);
    expect(await loggedIn(b)).toBe(false);
    expect(await loggedIn(other)).toBe(true);
  });

  it.each<[string, Record<string, unknown>, { key?: 'foreign' }?]>([
    ['signed by another key', { sub: 'ivan' }, { key: 'foreign' }],
    ['for another audience', { sub: 'ivan', aud: 'someone-else' }],
    ['from another issuer', { sub: 'ivan', iss: 'https://evil.example' }],
    ['without the back-channel event', { sub: 'ivan', events: { 'http://example/other': {} } }],
    ['with a nonce', { sub: 'ivan', nonce: 'n' }],
    ['naming neither sid nor sub', { sub: undefined }],
    ['issued long ago', { sub: 'ivan', iat: Math.floor(Date.now() / 1000) - 3600 }],
    ['without jti', { sub: 'ivan', jti: undefined }],
  ])('a logout token %s is refused (400) and ends nothing', async (_what, claims, options) => {
    const browser = on(0);
    await ssoLogin(browser, 'ivan');
    const res = await backchannel(1, await rig.idp.logoutToken(claims, options));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'invalid_request' } });
    expect(await loggedIn(browser)).toBe(true);
  });

  it('a replayed logout token (same jti) is refused; a missing or malformed one too', async () => {
    const token = await rig.idp.logoutToken({ sub: 'nobody-logged-in' });
    expect((await backchannel(0, token)).status).toBe(200);
    expect((await backchannel(1, token)).status).toBe(400);
    expect((await backchannel(0, undefined)).status).toBe(400);
    expect((await backchannel(0, 'not.a.jwt')).status).toBe(400);
  });

  it('the CSRF exemption is that exact path only: logout and lookalike paths still need the header', async () => {
    const browser = on(0);
    await ssoLogin(browser, 'judy');
    const noHeader = await browser.request('/auth/logout', { method: 'POST', headers: { accept: 'application/json' } });
    expect(noHeader.status).toBe(403);
    expect(noHeader.json()).toMatchObject({ error: { code: 'csrf_rejected' } });
    for (const path of ['/auth/oidc/backchannel-logout/', '/auth/oidc/Backchannel-logout', '/auth/oidc/backchannel-logout;x', '/auth//oidc/backchannel-logout']) {
      const res = await browser.request(path, { method: 'POST', form: { logout_token: 'x' }, headers: { accept: 'application/json' } });
      expect([path, res.status]).toEqual([path, 403]);
    }
    expect(await loggedIn(browser)).toBe(true);
    // With the header, the browser's own logout works as before.
    expect((await browser.request('/auth/logout', { method: 'POST', headers: { ...CSRF, accept: 'application/json' } })).status).toBe(200);
  });
});
