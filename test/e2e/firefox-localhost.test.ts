import { firefoxAvailability, launchFirefox, type FirefoxPage } from '../helpers/firefox-bidi.js';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.js';

// The first-minute path in Firefox too: npm start's defaults (simulator, Secure __Host- cookie) opened at
// http://localhost. Firefox, like Chromium, treats localhost as a secure context and keeps the Secure
// cookie, so the login must work there with nothing weakened.
const availability = firefoxAvailability();
if (!availability.run) console.warn(`Skipping the Firefox test: ${availability.reason}`);
const describeInFirefox = availability.run ? describe : describe.skip;

const visible = (selector: string) =>
  `(() => { const e = document.querySelector('${selector}'); return e && !e.hidden && getComputedStyle(e).display !== 'none'; })()`;

describeInFirefox('the demo page in Firefox at http://localhost with the default Secure cookie', () => {
  let service: ServiceProcess;
  let page: FirefoxPage;

  // Side by side, and long enough for both on a machine whose cores are taken (how long to wait, not a property).
  beforeAll(async () => {
    [service, page] = await Promise.all([startServiceProcess({ NODE_ENV: 'development' }), launchFirefox()]);
  }, 120_000);
  afterAll(async () => {
    await page?.close();
    await service?.kill();
  });

  test('when the printed demo secret is pasted, then the login works, a query runs and the cookie stays Secure, HttpOnly and __Host-', async () => {
    const secret = /Demo secret[^:]*: (\S+)/.exec(service.output())?.[1];
    expect(secret).toBeDefined();
    const port = new URL(service.url).port;
    await page.navigate(`http://localhost:${port}/`);
    await page.waitFor(visible('#login-view'));
    await page.evaluate(
      `(() => { document.querySelector('#secret').value = ${JSON.stringify(secret)}; document.querySelector('#login-button').click(); return true; })()`,
    );
    await page.waitFor(visible('#app-view'));
    await page.evaluate(`(() => { document.querySelector('#run-button').click(); return true; })()`);
    await page.waitFor(`document.querySelector('#output').textContent.includes('alice')`);

    const cookies = await page.cookies();
    expect(cookies.map((c) => [c.name, c.secure, c.httpOnly, c.sameSite.toLowerCase(), c.path])).toEqual([
      ['__Host-tgbff', true, true, 'strict', '/'],
    ]);
    expect(await page.evaluate<string>('document.cookie')).toBe('');
    expect(await page.evaluate<string>('document.body.innerText')).not.toContain(secret!);
  });
});
