import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { startRig, type Rig } from '../helpers/app-rig.js';
import { chromiumAvailability, launchChromium, type HeadlessChromium } from '../helpers/chromium.js';
import { untilMatch } from '../helpers/wait.js';

// Issue 41: the example app (examples/react-vite), as its README says to run it, in Chromium both ways:
// development (the Vite dev server proxying /auth and /api to the service, vite.config.ts as committed) and
// production shape (the service serving `vite build`'s output with APP_DIR). Each: log in with the secret, a
// generated query with its declared row type, TigerGraph's refusal of a missing person, logout. Its
// dependencies come from the repository's npm ci (it is a workspace): nothing is fetched here.
const availability = chromiumAvailability();
if (!availability.run) console.warn(`Skipping the React example browser tests: ${availability.reason}`);
const describeInBrowser = availability.run ? describe : describe.skip;

const run = promisify(execFile);
const ROOT = process.cwd();
const EXAMPLE = path.join(ROOT, 'examples/react-vite');
const VITE = path.join(ROOT, 'node_modules/vite/bin/vite.js');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const CODEGEN = path.join(ROOT, 'packages/codegen/dist/cli.js');

describeInBrowser('the React + Vite example app in Chromium', () => {
  let work: string;
  let prod: Rig;
  let dev: Rig;
  /** Sessions of 5 s: the app's expiry events within a test. */
  let short: Rig;
  let browser: HeadlessChromium;
  let vite: ChildProcess | undefined;
  let viteOut = '';

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'tgbff-react-example-'));
    // The example's own type check (strict, exactOptionalPropertyTypes), then the production build.
    await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: EXAMPLE });
    await run(process.execPath, [VITE, 'build', '--outDir', path.join(work, 'dist'), '--emptyOutDir'], {
      cwd: EXAMPLE,
    });
    const appDir = path.join(work, 'dist');
    [prod, dev, short] = await Promise.all([
      startRig({ env: { APP_DIR: appDir, LOGIN_RATE_LIMIT: '1000' }, label: 'react-prod' }),
      startRig({ env: { LOGIN_RATE_LIMIT: '1000' }, label: 'react-dev' }),
      startRig({
        env: { APP_DIR: appDir, LOGIN_RATE_LIMIT: '1000', SESSION_IDLE_TIMEOUT: '5', SESSION_ABSOLUTE_TIMEOUT: '5' },
        label: 'react-short',
      }),
    ]);
    const devUrl = await dev.listen();
    vite = spawn(process.execPath, [VITE], {
      cwd: EXAMPLE,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', BFF_URL: devUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    vite.stdout!.on('data', (chunk: Buffer) => (viteOut += chunk.toString()));
    vite.stderr!.on('data', (chunk: Buffer) => (viteOut += chunk.toString()));
    browser = await launchChromium();
  }, 300_000); // a type check and a production build on a busy machine
  afterAll(async () => {
    vite?.kill('SIGTERM');
    await browser?.close();
    await Promise.all([prod?.close(), dev?.close(), short?.close()]);
    if (work) await rm(work, { recursive: true, force: true });
  });

  /** Login with the secret, hello (declared row), friends (required person; a refused one), logout. */
  async function walkThrough(url: string, secret: string): Promise<string[]> {
    const page: Page = await browser.context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      const text = message.text();
      // Chromium reports the expected 401 of the first /auth/session and the 400 of the refused query.
      if (/content security policy|refused to/i.test(text)) problems.push(`csp: ${text}`);
      else if (message.type() === 'error' && !/status of (401|400)/.test(text)) problems.push(`console: ${text}`);
    });
    await page.goto(url);
    await page.getByLabel('Secret', { exact: true }).fill(secret);
    await page.getByRole('button', { name: 'Log in with the secret' }).click();
    await page.getByText('Logged in with secret').waitFor();

    await page.getByLabel('Name (optional)').fill('Ana');
    await page.getByRole('button', { name: 'Run hello' }).click();
    await page.getByLabel('hello answer').getByText('Hello, Ana!').waitFor();
    await page.getByRole('button', { name: 'Run friends' }).click();
    await page
      .getByLabel('friends answer')
      .getByText(/^alice: /)
      .waitFor();
    await page.getByLabel('Person', { exact: true }).fill('nobody');
    await page.getByRole('button', { name: 'Run friends' }).click();
    await page.getByLabel('friends answer').getByText('(REST-30000)').waitFor();

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByText('You logged out.').waitFor();
    await page.getByRole('button', { name: 'Log in with the secret' }).waitFor();
    const cookie = await page.evaluate<string>('document.cookie');
    await page.close();
    return [...problems, ...(cookie ? [`the page can read a cookie: ${cookie}`] : [])];
  }

  test('when the service serves the build (APP_DIR), then login, a generated query and logout work under its CSP', async () => {
    const url = await prod.listen();
    expect(await walkThrough(url, prod.secret)).toEqual([]);
    // The app's own route, opened directly, is the app (the page fallback), and its assets are cached for good.
    const page = await browser.context.newPage();
    const response = await page.goto(`${url}/people/alice`);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.getByRole('button', { name: 'Log in with the secret' }).waitFor();
    const asset = /src="(\/assets\/index-[\w-]{8}\.js)"/.exec(await (await fetch(url)).text())?.[1];
    expect((await fetch(`${url}${asset}`)).headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    await page.close();
  });

  test('when the Vite dev server proxies to the service as vite.config.ts says, then the same walk-through works', async () => {
    const [, devServer] = await untilMatch('the Vite dev server', () => viteOut, /Local:\s+(http:\/\/\S+?)\/?\s/, {
      timeoutMs: 60_000,
    });
    expect(await walkThrough(devServer!, dev.secret)).toEqual([]);
  });

  test('when the session nears its end and ends, then the app says so from the SDK events and shows the login', async () => {
    const page = await browser.context.newPage();
    await page.goto(await short.listen());
    await page.getByLabel('Secret', { exact: true }).fill(short.secret);
    await page.getByRole('button', { name: 'Log in with the secret' }).click();
    // Under a minute left at once: sessionexpiring fires on login; sessionend when the service says it is over.
    await page.getByText(/^Your session ends at /).waitFor();
    await page.getByText('Your session has ended; log in again.').waitFor();
    await page.getByRole('button', { name: 'Log in with the secret' }).waitFor();
    await page.close();
  });

  test('when the generator runs against the service, then it writes the committed src/queries.ts', async () => {
    const out = path.join(work, 'queries.ts');
    await run(process.execPath, [CODEGEN, '--service', await dev.listen(), '--out', out], {
      cwd: EXAMPLE,
      env: { PATH: process.env.PATH, TG_SECRET: dev.secret },
    });
    const body = (text: string) => text.split('\n').slice(1).join('\n');
    expect(body(await readFile(out, 'utf8'))).toBe(body(await readFile(path.join(EXAMPLE, 'src/queries.ts'), 'utf8')));
  });
});
