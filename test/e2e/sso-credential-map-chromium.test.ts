import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSimulator } from '../../src/simulator/index.js';
import { chromiumAvailability } from '../helpers/chromium.js';
import { signInAtIdp, startBrowserSso, type BrowserSso } from './sso-browser-rig.js';

/**
 * The credential map in a real browser, once: TigerGraph 3.4 (which cannot verify an IdP's JWT at all), a
 * real OpenID provider putting the person in a group of its ID token and issuing opaque access tokens (no
 * OIDC_AUDIENCE: an IdP without an API registration), the demo page's SSO button. Back from the IdP the
 * console says who signed in through which rule, links only the other graph the rule opens, and a query
 * goes through with a token of the rule's secret.
 */
const availability = chromiumAvailability();
if (!availability.run) console.warn(`Skipping the credential-map browser test: ${availability.reason}`);
const describeInBrowser = availability.run ? describe : describe.skip;

describeInBrowser('credential-map sign-in in headless Chromium', () => {
  let rig: BrowserSso;
  let dir: string;
  let alias: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tgbff-map-e2e-'));
    const secretFile = path.join(dir, 'tg-analysts');
    rig = await startBrowserSso({
      label: 'map-e2e',
      idp: { opaqueAccessTokens: true, accessClaimsOf: () => ({ groups: ['graph-analysts'] }) },
      sim: async () => {
        const sim = await startSimulator({ version: '3.4.0', graphs: ['finance'] });
        const secret = sim.createSecret({ alias: 'analysts_e2e', graph: 'social' });
        alias = secret.alias;
        writeFileSync(secretFile, secret.value);
        return sim;
      },
      env: () => {
        writeFileSync(
          path.join(dir, 'map.yaml'),
          [
            'rules:',
            '  - name: analysts',
            '    match: [graph-analysts]',
            '    graphs: [social, finance]',
            `    credential: { secretFile: ${secretFile} }`,
          ].join('\n'),
        );
        return { OIDC_CREDENTIAL_MAP: path.join(dir, 'map.yaml') };
      },
    });
  });

  afterAll(async () => {
    await rig?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('when an analyst signs in, then the console says who via which rule, offers only the open graphs, and a query runs on the rule token', async () => {
    const { url, idp, sim, browser } = rig;
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    await page.goto(url);
    await page.locator('#sso').waitFor({ state: 'visible' });
    expect(await page.getAttribute('#sso-button', 'href')).toBe('/auth/oidc/login?graph=social');
    await page.click('#sso-button');
    await signInAtIdp(page, idp, 'ana');

    await page.waitForURL((u) => u.toString().startsWith(url));
    await page.locator('#app-view').waitFor({ state: 'visible' });
    // The set-up holds: the IdP issued an opaque access token for this login (no audience was asked for).
    expect(idp.opaqueAccessTokens()).toBeGreaterThan(0);
    const who = await page.textContent('#who');
    expect(who).toContain('Signed in as User ana via analysts');
    expect(who).toContain('to graph social');
    const offered = await page
      .locator('#who .open-graphs a')
      .evaluateAll((links) => links.map((a) => [a.textContent, a.getAttribute('href')]));
    expect(offered).toEqual([['finance', '/auth/oidc/login?graph=finance']]);

    await page.fill('#path', '/graph/social/vertices/Person');
    await page.click('#run-button');
    await page.locator('#output').filter({ hasText: 'v_id' }).waitFor();
    const bearer = sim
      .seen()
      .map((r) => String(r.headers?.authorization ?? ''))
      .filter((h) => h.startsWith('Bearer '))
      .at(-1);
    expect(
      sim
        .tokens()
        .filter((t) => t.secretAlias === alias)
        .map((t) => `Bearer ${t.token}`),
    ).toContain(bearer);
    expect(errors).toEqual([]);
  });
});
