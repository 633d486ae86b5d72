import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import type { Page } from 'playwright-core';
import { startSimulator } from '../../src/simulator/index.js';
import type { SimulatorHandle } from '../../src/simulator/types.js';
import { chromiumAvailability, type HeadlessChromium } from '../helpers/chromium.js';
import type { TestIdp } from '../helpers/oidc-provider.js';
import { signInAtIdp as signInAt, startBrowserSso, type BrowserSso } from './sso-browser-rig.js';

/**
 * Single sign-on in a real browser, once, end to end: the demo page offers SSO, Chromium follows the
 * redirects to a real OpenID provider (oidc-provider, its own login and consent pages), comes back through
 * the callback, and the demo console relays a query whose bearer is the IdP's JWT, verified by the
 * simulator as TigerGraph 3.11 would (Security.JWT.RSA.PublicKey = the IdP's JWKS, Security.JWT.Audience).
 * Logging out navigates to the service's GET /auth/oidc/logout, which follows on to the IdP's end-session
 * page (id token as hint) and back. Nothing of the IdP's tokens is in the page's reach (cookies readable by
 * script, storage, any fetch/XHR answer), and another site's <img> or link cannot log the user out.
 */
const availability = chromiumAvailability();
if (!availability.run) console.warn(`Skipping the SSO browser test: ${availability.reason}`);
const describeInBrowser = availability.run ? describe : describe.skip;

/** A page of another site (http://localhost:<port>, not the same site as 127.0.0.1). */
async function startPage(html: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createHttpServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end(html));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://localhost:${port}/`,
    // The browser keeps its connection open; close() alone would wait for it.
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describeInBrowser('single sign-on in headless Chromium', () => {
  let rig: BrowserSso;
  let url: string;
  let idp: TestIdp;
  let sim: SimulatorHandle;
  let browser: HeadlessChromium;

  beforeAll(async () => {
    rig = await startBrowserSso({
      label: 'sso-e2e',
      idp: { accessClaims: { graph: 'social' } },
      sim: (made) =>
        startSimulator({
          version: '3.11.0',
          users: [{ name: 'alice', password: 'not-used-by-sso', graphs: ['social'] }],
          jwt: { rsaPublicKey: JSON.stringify(made.publicJwks), audience: made.audience },
        } as Parameters<typeof startSimulator>[0]),
      env: (made) => ({ OIDC_AUDIENCE: made.audience }),
    });
    ({ url, idp, sim, browser } = rig);
  });

  afterAll(async () => {
    await rig?.close();
  });

  const signInAtIdp = (page: Page, user: string) => signInAt(page, idp, user);

  test('when a user clicks SSO, signs in at the IdP and runs a query, then the simulator answers to the IdP user and the page never holds a token', async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const relayed: string[] = [];
    // Every answer the page's scripts could read (fetch and XHR), kept to search for the IdP's tokens (the
    // page's own fetches below read their bodies, else Chromium need not finish loading them).
    const scriptReadable: Promise<string>[] = [];
    page.on('response', (res) => {
      if (res.url().startsWith(`${url}/api/`)) relayed.push(`${res.status()} ${new URL(res.url()).pathname}`);
      const type = res.request().resourceType();
      if (type === 'fetch' || type === 'xhr') {
        scriptReadable.push(
          res
            .text()
            .catch(() => '')
            .then((body) => `${res.url()} ${JSON.stringify(res.headers())} ${body}`),
        );
      }
    });

    await page.goto(url);
    await page.locator('#sso').waitFor({ state: 'visible' });
    await page.click('#sso-button');
    await signInAtIdp(page, 'alice');

    // Back on the service, logged in through the IdP.
    await page.waitForURL((u) => u.toString().startsWith(url));
    await page.locator('#app-view').waitFor({ state: 'visible' });
    expect(await page.textContent('#who')).toContain('alice');
    const session = await page.evaluate<{ login: string }>("fetch('/auth/session').then((res) => res.json())");
    expect(session.login).toBe('oidc');

    // A query through the relay: the simulator verified the IdP's JWT (a refusal would be 401/403).
    await page.fill('#path', '/graph/social/vertices/Person');
    await page.click('#run-button');
    await page.locator('#output').filter({ hasText: 'v_id' }).waitFor();
    expect(relayed).toContain('200 /api/graph/social/vertices/Person');
    const bearers = sim
      .seen()
      .map((r) => String(r.headers?.authorization ?? ''))
      .filter((h) => h.startsWith('Bearer '));
    expect(bearers.length).toBeGreaterThan(0);
    const jwt = bearers[bearers.length - 1]!.slice('Bearer '.length);
    const claims = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as {
      sub: string;
      aud: string;
    };
    expect(claims.sub).toBe('alice');

    // Nothing of the IdP's tokens within the page's reach.
    const reachable = await page.evaluate<string>(
      'JSON.stringify({ cookie: document.cookie, local: { ...localStorage }, session: { ...sessionStorage }, html: document.documentElement.outerHTML })',
    );
    expect(reachable).not.toContain(jwt);
    expect(reachable).not.toContain(jwt.split('.')[2]!);
    const cookies = await browser.context.cookies(url);
    const sessionCookie = cookies.find((c) => c.name === 'tgbff' || c.name === '__Host-tgbff');
    expect(sessionCookie?.httpOnly).toBe(true);

    // Another site (localhost is not the same site as 127.0.0.1) tries to log the user out: an <img> and a
    // link the user follows. The session cookie is SameSite=Strict and the route wants a same-origin
    // navigation, so neither ends the session.
    const evil = await startPage(
      `<!doctype html><img src="${url}/auth/oidc/logout"><a id="go" href="${url}/auth/oidc/logout">win a prize</a>`,
    );
    try {
      const imgRefused = page.waitForEvent('requestfailed', (r) => r.url() === `${url}/auth/oidc/logout`);
      await page.goto(evil.url);
      await imgRefused; // blocked by CORP after the service answered 403 (the session lives on, checked below)
      await page.click('#go');
      await page.waitForURL((u) => u.toString().startsWith(`${url}/auth/oidc/logout`));
      expect(await page.content()).toContain('<h1>Logout did not happen</h1>');
    } finally {
      await evil.close();
    }
    await page.goto(url);
    await page.locator('#app-view').waitFor({ state: 'visible' });
    // This page's own script cannot use the logout URL either (it could read where a redirect goes).
    const scripted = await page.evaluate<number>(
      "fetch('/auth/oidc/logout').then(async (res) => { await res.text(); return res.status; })",
    );
    expect(scripted).toBe(403);
    expect(
      await page.evaluate<number>(
        "fetch('/auth/session').then(async (res) => { await res.text(); return res.status; })",
      ),
    ).toBe(200);

    // Log out: the page navigates to the service's logout URL, goes on to the IdP's end-session page with the
    // id token as hint, and comes back logged out.
    await page.click('#logout-button');
    await page.waitForURL((u) => u.toString().startsWith(idp.issuer));
    const idToken = new URL(page.url()).searchParams.get('id_token_hint');
    expect(idToken?.split('.')).toHaveLength(3);
    await page.locator('button[name="logout"]').click();
    await page.waitForURL((u) => u.toString().startsWith(url));
    await page.locator('#login-view').waitFor({ state: 'visible' });
    const after = await page.evaluate<number>(
      "fetch('/auth/session').then(async (res) => { await res.text(); return res.status; })",
    );
    expect(after).toBe(401);
    const readable = await Promise.all(scriptReadable);
    expect(readable.length).toBeGreaterThan(3);
    for (const needle of [jwt, jwt.split('.')[2]!, idToken!, idToken!.split('.')[2]!]) {
      expect(readable.filter((r) => r.includes(needle))).toEqual([]);
    }
    expect(errors).toEqual([]);
  });
});
