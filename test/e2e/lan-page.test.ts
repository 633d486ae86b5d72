import { chromiumAvailability, launchChromium, type HeadlessChromium } from '../helpers/chromium.js';
import { startRig, type Rig } from '../helpers/app-rig.js';

// The page opened by a LAN name over plain http in development: it must render (no
// upgrade-insecure-requests sending its scripts to an https port that does not exist), and a login must
// say how to fix the Secure cookie instead of failing silently. Chromium resolves the made-up name to
// loopback, so the service sees a non-loopback Host and the browser a non-secure origin, as on a LAN.
const availability = chromiumAvailability();
if (!availability.run) console.warn(`Skipping the LAN page test: ${availability.reason}`);
const describeInBrowser = availability.run ? describe : describe.skip;

describeInBrowser('the demo page over plain http by a LAN name, in development', () => {
  let rig: Rig;
  let browser: HeadlessChromium;
  let port: string;

  beforeAll(async () => {
    rig = await startRig({ env: { COOKIE_SECURE: 'true', LOGIN_RATE_LIMIT: '1000' } });
    port = new URL(await rig.listen()).port;
    browser = await launchChromium(['--host-resolver-rules=MAP bff.lan 127.0.0.1']);
  });
  afterAll(async () => {
    await browser?.close();
    await rig?.close();
  });

  test('when the page is opened, then it renders with its scripts and a login names the setting to change', async () => {
    const page = await browser.context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (/content security policy|refused to|mixed content/i.test(m.text())) problems.push(m.text());
    });
    const response = await page.goto(`http://bff.lan:${port}/`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).not.toContain('upgrade-insecure-requests');
    expect(response?.headers()['strict-transport-security']).toBeUndefined();
    await page.locator('#login-view').waitFor({ state: 'visible', timeout: 10_000 });
    await page.fill('#secret', rig.secret);
    await page.click('#login-button');
    await page.locator('#login-status', { hasText: 'COOKIE_SECURE=false' }).waitFor({ timeout: 10_000 }); // beside the form
    expect(await page.isHidden('#app-view')).toBe(true);
    expect(problems).toEqual([]);
  });
});
