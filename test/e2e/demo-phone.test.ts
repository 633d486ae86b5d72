import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { startRig, type Rig } from '../helpers/app-rig.js';
import { chromiumAvailability, launchChromium, type HeadlessChromium } from '../helpers/chromium.js';

/**
 * The demo console on a phone (390 × 844, Chromium): no horizontal scroll, the form and the answer on
 * screen, an axe-core scan (WCAG 2.0/2.1 A and AA) that finds nothing before and after a login and a run,
 * a templated GET that says what to fill in, and a session bar that counts down and shows the end without
 * a click.
 */
const availability = chromiumAvailability();
if (!availability.run) console.warn(`Skipping the phone-size demo-page tests: ${availability.reason}`);
const describeInBrowser = availability.run ? describe : describe.skip;

const PHONE = { width: 390, height: 844 };
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** axe's violations as `rule: targets` lines (injected over DevTools, so the page's CSP does not apply). */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate<{ violations: Array<{ id: string; nodes: Array<{ target: string[] }> }> }>(
    `axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(WCAG_AA)} } })`,
  );
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
}

/** The element's box lies within the viewport's width (it may be below the fold: vertical scroll is fine). */
async function withinWidth(page: Page, selector: string): Promise<boolean> {
  const box = await page.locator(selector).boundingBox();
  return box !== null && box.x >= 0 && box.x + box.width <= PHONE.width + 0.5;
}

describeInBrowser('demo page on a phone', () => {
  let rig: Rig;
  /** Sessions of 5 s, so the countdown reaches a session's end within a test (after a login of up to ~3 s). */
  let shortRig: Rig;
  let browser: HeadlessChromium;

  beforeAll(async () => {
    // Side by side; each is kept as soon as it is up, so afterAll closes what started if another fails.
    await Promise.all([
      startRig({ env: { LOGIN_RATE_LIMIT: '1000' } }).then((r) => (rig = r)),
      startRig({
        env: { LOGIN_RATE_LIMIT: '1000', SESSION_IDLE_TIMEOUT: '5', SESSION_ABSOLUTE_TIMEOUT: '5' },
      }).then((r) => (shortRig = r)),
      launchChromium().then((b) => (browser = b)),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await rig?.close();
    await shortRig?.close();
  });

  async function open(on: Rig = rig): Promise<Page> {
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    await page.setViewportSize(PHONE);
    await page.goto(await on.listen());
    await page.locator('#login-view').waitFor({ state: 'visible' });
    return page;
  }

  async function logIn(page: Page, on: Rig = rig): Promise<void> {
    await page.fill('#secret', on.sim.createSecret({ graph: 'social' }).value);
    await page.click('#login-button');
    await page.locator('#app-view').waitFor({ state: 'visible' });
    await page.locator('#endpoint-list button').first().waitFor();
  }

  test('when logged out, logged in and after a run, then nothing scrolls sideways, form and answer fit, and axe finds nothing', async () => {
    const page = await open();
    expect(await horizontalOverflow(page)).toBe(0);
    expect(await axeViolations(page)).toEqual([]);

    await logIn(page);
    expect(await horizontalOverflow(page)).toBe(0);
    for (const field of ['#method', '#path', '#run-button'])
      expect({ field, fits: await withinWidth(page, field) }).toEqual({ field, fits: true });
    expect(await axeViolations(page)).toEqual([]);

    await page.fill('#path', '/graph/social/vertices/Person');
    await page.click('#run-button');
    await page.locator('#output:not(:empty)').waitFor();
    expect(await horizontalOverflow(page)).toBe(0);
    expect(await withinWidth(page, '#output')).toBe(true);
    // The answer was brought into view, and its pane takes keyboard focus (it scrolls).
    expect(await page.locator('#answer-status').isVisible()).toBe(true);
    const answerInView =
      "(() => { const r = document.getElementById('answer-status').getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; })()";
    expect(await page.evaluate<boolean>(answerInView)).toBe(true);
    await page.focus('#output');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('output');
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  test('when a query with parameters is picked, then its form fits at 390 and 1280 px, axe finds nothing, and paths wrap after a slash', async () => {
    const page = await open();
    await logIn(page);
    // Issue 41: each segment of a listed path stays on one line (breaks come only after a slash).
    const splitSegments = `[...document.querySelectorAll('button.endpoint code')].flatMap((code) =>
      [...code.childNodes].filter((n) => n.nodeType === 3).filter((n) => {
        const range = document.createRange();
        range.selectNodeContents(n);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
      }).map((n) => n.textContent))`;
    expect(await page.evaluate<string[]>(splitSegments)).toEqual([]);
    await page.click('button.endpoint[data-method="GET"][data-path="/query/social/friends"]');
    await page.locator('#param-form').waitFor({ state: 'visible' });
    expect(await horizontalOverflow(page)).toBe(0);
    for (const field of ['#param-fields input[name="person"]', '#param-run'])
      expect({ field, fits: await withinWidth(page, field) }).toEqual({ field, fits: true });
    expect(await axeViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await page.evaluate<string[]>(splitSegments)).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  test('when a templated GET is picked, then the form is filled and the page says what to replace', async () => {
    const page = await open();
    await logIn(page);
    await page.locator('#endpoint-list button', { hasText: '/graph/social/vertices/{vertex_type}' }).first().click();
    expect(await page.inputValue('#path')).toBe('/graph/social/vertices/{vertex_type}');
    // Issue 41: beside the form it is about.
    expect(await page.textContent('#query-hint')).toContain('replace {vertex_type} in the path, then press Run');
    expect(await page.getAttribute('#query-hint', 'class')).toBe('info');
    expect(await page.textContent('#output')).toBe(''); // filled, not run
    await page.close();
  });

  test('when the session nears its end, then the bar counts down in seconds and shows the end without a click', async () => {
    const page = await open(shortRig);
    await logIn(page, shortRig);
    // Functions, not strings: the page's CSP forbids eval, which a string predicate would need.
    const secondsLeft = () => {
      const text: string = (globalThis as any).document.getElementById('who').textContent;
      const match = /Session \(ends your login\) expires in (\d+) s\b/.exec(text);
      return match ? Number(match[1]) : undefined;
    };
    await page.waitForFunction(secondsLeft);
    const first = (await page.evaluate(secondsLeft))!;
    await page.waitForFunction((start) => {
      const match = /Session \(ends your login\) expires in (\d+) s\b/.exec(
        (globalThis as any).document.getElementById('who').textContent,
      );
      return match !== null && Number(match[1]) < start;
    }, first);
    // No click, no navigation: the page's own timer asks the server at the end and shows it.
    await page.waitForFunction(
      () => (globalThis as any).document.getElementById('who').textContent === 'Not logged in',
      undefined,
      { timeout: 15_000 },
    );
    expect(await page.textContent('#status')).toBe('Your session has ended; log in again.');
    expect(await page.locator('#login-view').isVisible()).toBe(true);
    await page.close();
  });
});
