import type { Page } from 'playwright-core';
import { startRig, type Rig } from '../helpers/app-rig.js';
import { chromiumAvailability, launchChromium, type HeadlessChromium } from '../helpers/chromium.js';

const availability = chromiumAvailability();
if (!availability.run) console.warn(`Skipping the demo-page browser tests: ${availability.reason}`);
const describeInBrowser = availability.run ? describe : describe.skip;

const SCREENSHOT = '/tmp/tgbff-demo-page.png';
// Chromium reports every 4xx fetch on the console; the page expects these 401s (no session yet, wrong secret).
const EXPECTED_CONSOLE = /^Failed to load resource: the server responded with a status of 401/;

interface OpenedPage {
  page: Page;
  /** Page errors, CSP violations and console errors other than the expected 401s. */
  problems(): Promise<string[]>;
}

describeInBrowser('demo page in headless Chromium', () => {
  let rig: Rig;
  let browser: HeadlessChromium;
  let url: string;

  beforeAll(async () => {
    rig = await startRig({ env: { LOGIN_RATE_LIMIT: '1000' } });
    url = await rig.listen();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await rig?.close();
  });
  beforeEach(async () => {
    await browser.context.clearCookies();
    for (const page of browser.context.pages()) await page.close();
  });

  async function open(): Promise<OpenedPage> {
    const page = await browser.context.newPage();
    const seen: string[] = [];
    page.on('pageerror', (error) => seen.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      const text = message.text();
      if (/content security policy|refused to/i.test(text)) seen.push(`csp: ${text}`);
      else if (message.type() === 'error' && !EXPECTED_CONSOLE.test(text)) seen.push(`console: ${text}`);
    });
    // Runs through the DevTools protocol, so the page's CSP does not block this recorder itself.
    await page.addInitScript(`
      window.__cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
    `);
    const response = await page.goto(url);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    return {
      page,
      async problems() {
        const violations = await page.evaluate<string[]>('window.__cspViolations');
        return [...seen, ...violations.map((v) => `csp violation: ${v}`)];
      },
    };
  }

  async function logIn(page: Page, secret: string): Promise<void> {
    await page.locator('#login-view').waitFor({ state: 'visible' });
    await page.fill('#secret', secret);
    await page.click('#login-button');
  }

  async function storageDump(page: Page): Promise<string> {
    return page.evaluate<string>(
      'JSON.stringify({ cookie: document.cookie, local: { ...localStorage }, session: { ...sessionStorage } })',
    );
  }

  test('when the page opens without a session, then the login form shows, styled, with the app view hidden', async () => {
    const { page, problems } = await open();
    await page.locator('#login-view').waitFor({ state: 'visible' });
    expect(await page.isVisible('#secret')).toBe(true);
    expect(await page.isHidden('#app-view')).toBe(true);
    // app.css applied under the CSP: the submit button takes the stylesheet's colour.
    const background = await page.evaluate<string>("getComputedStyle(document.getElementById('login-button')).backgroundColor");
    expect(background).toBe('rgb(255, 102, 0)');
    expect(await problems()).toEqual([]);
  });

  test('when the rig secret is submitted and the default query runs, then the graph name and JSON with alice show', async () => {
    const { page, problems } = await open();
    await logIn(page, rig.secret);
    await page.locator('#app-view').waitFor({ state: 'visible' });
    expect(await page.textContent('#who')).toContain('graph social');
    expect(await page.inputValue('#path')).toBe('/graph/social/vertices/Person');
    await page.click('#run-button');
    await page.locator('#output', { hasText: 'alice' }).waitFor();
    const output = JSON.parse((await page.textContent('#output')) ?? '');
    expect(output.error).toBe(false);
    expect(output.results.map((v: { v_id: string }) => v.v_id)).toContain('alice');
    expect(await page.textContent('#status')).toBe('');
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(await problems()).toEqual([]);
  });

  test('when logged in, then scripts cannot read the HttpOnly cookie and no token or secret reaches the page or storage', async () => {
    const { page, problems } = await open();
    await logIn(page, rig.secret);
    await page.locator('#app-view').waitFor({ state: 'visible' });
    await page.click('#run-button');
    await page.locator('#output', { hasText: 'alice' }).waitFor();

    const [cookie] = (await browser.context.cookies(url)).filter((c) => c.name === rig.config.session.cookieName);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    const dump = await storageDump(page);
    expect(dump).not.toContain(cookie!.name);
    expect(dump).not.toContain(cookie!.value);
    expect(await page.inputValue('#secret')).toBe('');

    const tokens = rig.sim.tokens().map((t) => t.token);
    expect(tokens.length).toBeGreaterThan(0);
    // Booleans, so a failure does not print the secret or a token.
    for (const text of [await page.content(), dump]) {
      expect(text.includes(rig.secret)).toBe(false);
      expect(tokens.filter((token) => text.includes(token))).toHaveLength(0);
    }
    expect(await problems()).toEqual([]);
  });

  test('when a wrong secret is submitted, then an error message shows and the login form stays', async () => {
    const { page, problems } = await open();
    await logIn(page, 'not-the-secret-at-all');
    await page.locator('#status').filter({ hasText: /\S/ }).waitFor();
    const direct = await fetch(`${url}/auth/login`, {
      method: 'POST',
      headers: { 'X-Requested-With': 'XMLHttpRequest', 'Content-Type': 'application/json' },
      body: JSON.stringify({ secret: 'not-the-secret-at-all' }),
    });
    const { error } = (await direct.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('invalid_credentials');
    expect(await page.textContent('#status')).toBe(error.message);
    expect(await page.isVisible('#login-view')).toBe(true);
    expect(await page.isHidden('#app-view')).toBe(true);
    expect(await browser.context.cookies(url)).toEqual([]);
    expect(await problems()).toEqual([]);
  });

  test('when logging out, then the login form shows again and /api calls, also with the old cookie, answer 401', async () => {
    const { page, problems } = await open();
    await logIn(page, rig.secret);
    await page.locator('#app-view').waitFor({ state: 'visible' });
    const [old] = (await browser.context.cookies(url)).filter((c) => c.name === rig.config.session.cookieName);
    expect(old).toBeDefined();

    await page.click('#logout-button');
    await page.locator('#login-view').waitFor({ state: 'visible' });
    expect(await page.isHidden('#app-view')).toBe(true);
    expect(await page.textContent('#status')).toBe('Logged out.');

    const fromPage = await page.evaluate<{ status: number; body: { error: { code: string } } }>(`
      fetch('/api/graph/social/vertices/Person', { headers: { 'X-Requested-With': 'XMLHttpRequest' } })
        .then(async (res) => ({ status: res.status, body: await res.json() }))
    `);
    expect(fromPage).toEqual({ status: 401, body: { error: expect.objectContaining({ code: 'not_authenticated' }) } });

    // The server forgot the session too, not just the browser its cookie.
    const replay = await fetch(`${url}/api/graph/social/vertices/Person`, {
      headers: { 'X-Requested-With': 'XMLHttpRequest', Cookie: `${old!.name}=${old!.value}` },
    });
    expect(replay.status).toBe(401);
    expect(((await replay.json()) as { error: { code: string } }).error.code).toBe('not_authenticated');
    expect(await problems()).toEqual([]);
  });
});
