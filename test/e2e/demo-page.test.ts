import type { Page } from 'playwright-core';
import { startRig, type Rig } from '../helpers/app-rig.js';
import { DEMO_QUERIES } from '../../src/simulator/demo-queries.js';
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
  });
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
    const background = await page.evaluate<string>(
      "getComputedStyle(document.getElementById('login-button')).backgroundColor",
    );
    expect(background).toBe('rgb(194, 65, 12)');
    expect(await page.textContent('#who')).toBe('Not logged in');
    expect(await page.isVisible('#who')).toBe(true);
    expect(await page.isHidden('#logout-button')).toBe(true);
    expect(await problems()).toEqual([]);
  });

  test('when the page logs in and runs a query, then it does so through the browser SDK served from /sdk/ (issue 26)', async () => {
    const { page, problems } = await open();
    const scripts: string[] = [];
    const calls: Array<[string, string | undefined]> = [];
    page.on('response', (res) => {
      const { pathname } = new URL(res.url());
      // 200, or 304 from the context's cache when an earlier test loaded the page.
      if (pathname.endsWith('.js')) scripts.push(`${pathname} ${res.status() === 304 ? 200 : res.status()}`);
    });
    page.on('request', (req) => {
      const { pathname } = new URL(req.url());
      if (/^\/(auth|api)\//.test(pathname))
        calls.push([`${req.method()} ${pathname}`, req.headers()['x-requested-with']]);
    });
    await page.reload();
    await logIn(page, rig.secret);
    await page.click('button.endpoint[data-method="GET"][data-path="/query/social/hello"]');
    await page.click('#param-run');
    await page.locator('#output', { hasText: 'Hello, World!' }).waitFor();
    expect(scripts).toEqual(expect.arrayContaining(['/bff.js 200', '/sdk/index.js 200', '/sdk/client.js 200']));
    expect(scripts.filter((s) => s.startsWith('/api.js'))).toEqual([]);
    // The SDK sends the CSRF header on every call, GETs of public routes included.
    expect(calls.map(([call]) => call)).toEqual(
      expect.arrayContaining(['POST /auth/login', 'GET /auth/session', 'GET /api/query/social/hello']),
    );
    expect(calls.filter(([, csrf]) => csrf !== 'XMLHttpRequest')).toEqual([]);
    expect(await problems()).toEqual([]);
  });

  test('when logged in, then the session bar shows the graph and both expiries as local time and "expires in"', async () => {
    const { page, problems } = await open();
    // Far from UTC, so a UTC time shown as if it were local would not pass.
    await (
      await browser.context.newCDPSession(page)
    ).send('Emulation.setTimezoneOverride', { timezoneId: 'Asia/Tokyo' });
    await logIn(page, rig.secret);
    await page.locator('#who time').nth(1).waitFor();
    const session = await page.evaluate<{ tokenExpiresAt: string; sessionExpiresAt: string }>(
      "fetch('/auth/session').then((res) => res.json())",
    );
    const who = (await page.textContent('#who')) ?? '';
    expect(who).toContain('Logged in to graph social');
    // Issue 41: the bar says which end logs you out.
    expect(who).toMatch(/Token \(renewed by the service\) expires in \d+ (min|h|days), at /);
    expect(who).toMatch(/Session \(ends your login\) expires in \d+ (min|h|days), at /);
    const times = await page.$$eval('#who time', (els) =>
      els.map((el) => [el.getAttribute('datetime') ?? '', el.textContent]),
    );
    const tokyo = (iso: string) =>
      new Date(iso).toLocaleString('en-US', { timeZone: 'Asia/Tokyo', dateStyle: 'medium', timeStyle: 'short' });
    expect(times).toHaveLength(2);
    expect(times[0]).toEqual([session.tokenExpiresAt, tokyo(session.tokenExpiresAt)]);
    // The idle expiry slides with every request, so the bar's value is a moment older than this one.
    expect(Math.abs(Date.parse(times[1]![0]!) - Date.parse(session.sessionExpiresAt))).toBeLessThan(5_000);
    expect(times[1]![1]).toBe(tokyo(times[1]![0]!));
    expect(await page.isVisible('#logout-button')).toBe(true);
    expect(await problems()).toEqual([]);
  });

  test('when logged in, then every demo query of the simulator is listed, read from GET /endpoints through the relay', async () => {
    const { page, problems } = await open();
    const mark = rig.sim.seen().length;
    await logIn(page, rig.secret);
    await page.locator('button.endpoint').first().waitFor();
    const listed = await page.$$eval('button.endpoint', (els) =>
      els.map((el) => `${el.dataset.method} ${el.dataset.path}`),
    );
    for (const query of DEMO_QUERIES) {
      expect(listed).toContain(`GET /query/social/${query}`);
      expect(listed).toContain(`POST /query/social/${query}`);
    }
    expect(listed).toContain('POST /builtins/social');
    expect(listed.filter((entry) => entry.includes('/requesttoken'))).toEqual([]);
    const asked = rig.sim
      .seen()
      .slice(mark)
      .filter((r) => r.path === '/endpoints/social');
    expect(asked.map((r) => [r.method, r.query, r.auth, r.status]).sort()).toEqual([
      ['GET', 'builtin=true', 'ok', 200],
      ['GET', 'dynamic=true', 'ok', 200],
    ]);
    expect(await problems()).toEqual([]);
  });

  test('when a listed demo query is clicked, then its parameters get a form, and on submit it runs through the relay', async () => {
    const { page, problems } = await open();
    await logIn(page, rig.secret);
    const mark = rig.sim.seen().length;
    await page.click('button.endpoint[data-method="GET"][data-path="/query/social/hello"]');
    // Issue 41: a query with parameters does not run at once, empty: a form for them, typed from the listing.
    await page.locator('#param-form').waitFor({ state: 'visible' });
    expect(await page.getAttribute('#param-fields input[name="name"]', 'placeholder')).toBe('default World');
    expect(
      rig.sim
        .seen()
        .slice(mark)
        .filter((r) => r.path.startsWith('/query/')),
    ).toEqual([]);
    await page.click('#param-run');
    await page.locator('#output', { hasText: 'Hello, World!' }).waitFor();
    expect(JSON.parse((await page.textContent('#output')) ?? '')).toMatchObject({
      error: false,
      results: [{ greeting: 'Hello, World!' }],
    });
    expect(await page.textContent('#answer-status')).toMatch(/^200 OK · GET \/query\/social\/hello · \d+ ms$/);
    expect(await page.getAttribute('#answer-status', 'class')).toBe('ok');
    expect(await page.inputValue('#path')).toBe('/query/social/hello');
    expect(
      rig.sim
        .seen()
        .slice(mark)
        .filter((r) => r.path === '/query/social/hello')
        .map((r) => [r.method, r.auth, r.status]),
    ).toEqual([['GET', 'ok', 200]]);
    expect(await page.textContent('#status')).toBe('');
    // A required parameter is required by the form: friends without a person is not sent.
    await page.click('button.endpoint[data-method="GET"][data-path="/query/social/friends"]');
    expect(await page.getAttribute('#param-fields input[name="person"]', 'required')).toBe('');
    await page.fill('#param-fields input[name="person"]', 'alice');
    await page.click('#param-run');
    await page.locator('#output', { hasText: '"person": "alice"' }).waitFor();
    expect(await page.inputValue('#path')).toBe('/query/social/friends?person=alice');
    expect(await problems()).toEqual([]);
  });

  test('when a POST is picked and run with a body, then the data server gets the body and the answer shows formatted', async () => {
    const { page, problems } = await open();
    await logIn(page, rig.secret);
    await page.locator('button.endpoint').first().waitFor();
    expect(await page.isHidden('#body')).toBe(true);
    const mark = rig.sim.seen().length;
    await page.click('button.endpoint[data-method="POST"][data-path="/query/social/hello"]');
    expect(await page.inputValue('#method')).toBe('POST');
    expect(await page.isVisible('#body')).toBe(true);
    expect(JSON.parse(await page.inputValue('#body'))).toEqual({ name: '' });
    expect(
      rig.sim
        .seen()
        .slice(mark)
        .filter((r) => r.path.startsWith('/query/')),
    ).toEqual([]); // picking a POST does not send it
    await page.fill('#body', '{"name": "Ada"}');
    await page.click('#run-button');
    await page.locator('#output', { hasText: 'Hello, Ada!' }).waitFor();
    const output = (await page.textContent('#output')) ?? '';
    expect(output).toBe(JSON.stringify(JSON.parse(output), null, 2));
    expect(await page.textContent('#answer-status')).toMatch(/^200 OK · POST \/query\/social\/hello · \d+ ms$/);
    const posted = rig.sim
      .seen()
      .slice(mark)
      .filter((r) => r.path === '/query/social/hello');
    expect(posted.map((r) => [r.method, r.bodyText, r.auth, r.status])).toEqual([
      ['POST', '{"name": "Ada"}', 'ok', 200],
    ]);
    expect(await problems()).toEqual([]);
  });

  test('when RELAY_ALLOW leaves out /endpoints, then the list says why and the form still runs', async () => {
    const narrow = await startRig({ env: { LOGIN_RATE_LIMIT: '1000', RELAY_ALLOW: 'GET /graph/' } });
    try {
      const page = await browser.context.newPage();
      const seen: string[] = [];
      page.on('pageerror', (error) => seen.push(`pageerror: ${error.message}`));
      page.on('console', (m) => {
        if (/content security policy|refused to/i.test(m.text())) seen.push(m.text());
      });
      await page.goto(await narrow.listen());
      await logIn(page, narrow.secret);
      const hint = page.locator('#endpoint-list .hint');
      await hint.waitFor();
      const refused = await page.evaluate<{ error: { code: string; message: string } }>(
        "fetch('/api/endpoints/social?dynamic=true', { headers: { 'X-Requested-With': 'XMLHttpRequest' } }).then((r) => r.json())",
      );
      expect(refused.error.code).toBe('path_not_allowed');
      expect(await hint.textContent()).toBe(`Could not list endpoints (403: ${refused.error.message}).`);
      expect(await page.locator('button.endpoint').count()).toBe(0);
      expect(narrow.sim.seen().filter((r) => r.path.startsWith('/endpoints'))).toEqual([]);
      await page.click('#run-button');
      await page.locator('#output', { hasText: 'alice' }).waitFor();
      expect(seen).toEqual([]);
    } finally {
      await narrow.close();
    }
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
    // Issue 41: beside the form that caused it.
    await page.locator('#login-status').filter({ hasText: /\S/ }).waitFor();
    const direct = await fetch(`${url}/auth/login`, {
      method: 'POST',
      headers: { 'X-Requested-With': 'XMLHttpRequest', 'Content-Type': 'application/json' },
      body: JSON.stringify({ secret: 'not-the-secret-at-all' }),
    });
    const { error } = (await direct.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('invalid_credentials');
    expect(await page.textContent('#login-status')).toBe(error.message);
    expect(await page.getAttribute('#login-status', 'class')).toBe('error');
    expect(await page.textContent('#who')).toBe('Not logged in');
    expect(await page.isVisible('#login-view')).toBe(true);
    expect(await page.isHidden('#app-view')).toBe(true);
    expect(await browser.context.cookies(url)).toEqual([]);
    expect(await problems()).toEqual([]);
  });

  test('when the graph named does not exist, then login is refused with a message saying so and no cookie (issue 30)', async () => {
    const { page, problems } = await open();
    await page.locator('#login-view').waitFor({ state: 'visible' });
    await page.fill('#graph', 'nosuch');
    await logIn(page, rig.secret);
    await page.locator('#login-status').filter({ hasText: /\S/ }).waitFor();
    expect(await page.textContent('#login-status')).toBe('That graph does not exist, or this secret is not for it');
    expect(await page.getAttribute('#login-status', 'class')).toBe('error');
    expect(await page.isVisible('#login-view')).toBe(true);
    expect(await browser.context.cookies(url)).toEqual([]);
    // The browser logs the refused login's 400 itself; anything else would be a problem.
    const unexpected = (await problems()).filter((p) => !/status of 400 \(Bad Request\)/.test(p));
    expect(unexpected).toEqual([]);
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
    // Information, not an error: its own class and colours.
    expect(await page.getAttribute('#status', 'class')).toBe('info');
    const colours = await page.evaluate<string[]>(
      "['color', 'backgroundColor'].map((p) => getComputedStyle(document.getElementById('status'))[p])",
    );
    expect(colours).toEqual(['rgb(17, 51, 68)', 'rgb(230, 240, 251)']);
    expect(await page.textContent('#who')).toBe('Not logged in');
    expect(await page.isHidden('#logout-button')).toBe(true);
    expect(await page.textContent('#output')).toBe('');

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

  test('when the person has another session, then "Your sessions" lists both and its End button ends the other one (issue 40)', async () => {
    const { value } = rig.sim.createSecret({ alias: 'page_sessions' });
    const other = await rig.login(value);
    const { page, problems } = await open();
    await logIn(page, value);
    await page.locator('#app-view').waitFor({ state: 'visible' });
    await page.locator('#session-list li').nth(1).waitFor({ state: 'visible' });
    const items = await page.locator('#session-list li').allTextContents();
    expect(items).toHaveLength(2);
    expect(items[0]).toMatch(/^This session/);
    expect(await page.isVisible('#end-others-button')).toBe(true);

    await page.locator('#session-list li').nth(1).locator('button').click();
    await page.locator('#session-list li').nth(1).waitFor({ state: 'detached' });
    const res = await other.get('/auth/session');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('session_ended');
    expect(await page.isVisible('#app-view')).toBe(true);
    expect(await problems()).toEqual([]);
  });
});
