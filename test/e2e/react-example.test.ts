import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { chromiumAvailability, launchChromium, type HeadlessChromium } from '../helpers/chromium.js';
import { seedLockForService } from '../helpers/consumer-project.js';
import { releaseFolder } from '../helpers/release-folder.js';
import { untilMatch } from '../helpers/wait.js';

// Issue 41's "done when": a frontend developer with only the release folder and the docs gets the example app
// talking to a running service, in development and in production shape, in Chromium. Nothing here comes from
// the checkout but the release folder (`npm run release`, shared with release.test.ts: one build per jest
// run), and every step is the docs' own, in empty temp directories:
// - the service, as docs/install.md says: `npm init -y`, `npm install` of its two tarballs, started with
//   `node node_modules/tigergraph-bff/dist/main.js` (no setting: the built-in simulator, the demo secret it
//   prints; PORT=0 and METRICS_PORT=0 only so that parallel tests never collide);
// - the example, as examples/react-vite/README.md says: the release's example tarball extracted, `npm install`
//   of the browser SDK's and the generator's tarballs, `npm run codegen` against the service, `npm run dev`
//   (the Vite dev server's proxy) and `npm run build` served by the service with APP_DIR.
// Each way: login with the secret, a generated query with its declared row type, TigerGraph's refusal of a
// missing person, logout; then the session's expiry events, and the generator's output against the file the
// release ships.
// No registry: every install is `--offline`, from the npm cache the repository's `npm ci` filled (a cache
// emptied since then falls back to --prefer-offline). The example ships its own lock file (the release
// writes it from this repository's), so react, vite and the rest resolve from it; the service's project gets
// a lock file of this repository's production entries first, standing in for the registry's version lists
// that the cache does not hold (seedLockForService). --no-audit --no-fund: no request to the registry after.
const availability = chromiumAvailability();
if (!availability.run) console.warn(`Skipping the React example browser tests: ${availability.reason}`);
const describeInBrowser = availability.run ? describe : describe.skip;

const execFileAsync = promisify(execFile);
const VERSION = (JSON.parse(await readFile('package.json', 'utf8')) as { version: string }).version;
// The cache is the one `npm ci` filled: HOME's, or npm_config_cache's when CI names another.
const ENV: Record<string, string> = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? tmpdir(),
  ...(process.env.npm_config_cache && { npm_config_cache: process.env.npm_config_cache }),
};

/** A command the docs give, in `cwd`, with only `env` beyond PATH and HOME. */
const sh = (cwd: string, command: string, args: string[], env: Record<string, string> = {}) =>
  execFileAsync(command, args, { cwd, env: { ...ENV, ...env }, maxBuffer: 16 * 1024 * 1024 }).catch(
    (err: Error & { stdout?: string; stderr?: string }) => {
      err.message += `\n${err.stdout ?? ''}${err.stderr ?? ''}`;
      throw err;
    },
  );

/** `npm install <specs>` as the docs say it, offline (see above). */
async function npmInstall(cwd: string, specs: string[]): Promise<void> {
  const install = ['install', '--no-audit', '--no-fund', ...specs];
  await sh(cwd, 'npm', ['--offline', ...install]).catch((err: { stderr?: string }) => {
    if (!err.stderr?.includes('ENOTCACHED')) throw err;
    return sh(cwd, 'npm', ['--prefer-offline', ...install]);
  });
}

/** A long-running command (the service, the dev server) in its own process group, its output collected. */
class Running {
  readonly proc: ChildProcess;
  out = '';
  constructor(cwd: string, command: string, args: string[], env: Record<string, string>) {
    this.proc = spawn(command, args, {
      cwd,
      env: { ...ENV, ...env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc.stdout!.on('data', (chunk: Buffer) => (this.out += chunk.toString()));
    this.proc.stderr!.on('data', (chunk: Buffer) => (this.out += chunk.toString()));
  }
  match(what: string, pattern: RegExp): Promise<RegExpExecArray> {
    const exited = once(this.proc, 'exit').then(([code]) => {
      throw new Error(`${what}: the process exited (${code}) first:\n${this.out}`);
    });
    return Promise.race([untilMatch(what, () => this.out, pattern, { timeoutMs: 120_000 }), exited]);
  }
  async stop(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const exit = once(this.proc, 'exit');
    process.kill(-this.proc.pid!, 'SIGTERM'); // npm and what it started
    await exit;
  }
}

describeInBrowser('the React + Vite example app from a release folder, in Chromium', () => {
  let work: string;
  let release: string;
  let app: string;
  const running: Running[] = [];
  let browser: HeadlessChromium;
  let shippedQueries: string;
  let devServer: string;
  const services = {} as Record<'dev' | 'prod' | 'short', { url: string; secret: string }>;

  /** The service installed from the release, started as docs/install.md says; its URL and demo secret. */
  async function startService(name: keyof typeof services, bff: string, env: Record<string, string> = {}) {
    const service = new Running(bff, process.execPath, ['node_modules/tigergraph-bff/dist/main.js'], {
      PORT: '0',
      METRICS_PORT: '0',
      ...env,
    });
    running.push(service);
    const [, url] = await service.match(`the ${name} service's URL`, /open (http:\/\/\S+?)\/? in a browser/);
    const [, secret] = await service.match(`the ${name} service's demo secret`, /Demo secret[^:]*: (\S+)/);
    services[name] = { url: url!, secret: secret! };
  }

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'tgbff-react-release-'));
    ({ dir: release } = await releaseFolder(path.join(work, 'release')));
    const tarball = (name: string) => path.join(release, `${name}-${VERSION}.tgz`);
    const bff = path.join(work, 'bff');
    app = path.join(work, 'react-vite');
    await mkdir(bff);
    await Promise.all([
      (async () => {
        await sh(bff, 'npm', ['init', '-y']);
        await seedLockForService(bff);
        await npmInstall(bff, [tarball('tigergraph-bff'), tarball('tigergraph-bff-client')]);
        await startService('dev', bff);
      })(),
      (async () => {
        await sh(work, 'tar', ['-xzf', path.join(release, `tigergraph-bff-example-react-vite-${VERSION}.tar.gz`)]);
        await npmInstall(app, [tarball('tigergraph-bff-browser'), tarball('tigergraph-bff-codegen')]);
      })(),
    ]);
    // The generator against the running service, then the dev server and the production build beside it.
    shippedQueries = await readFile(path.join(app, 'src/queries.ts'), 'utf8');
    await sh(app, 'npm', ['run', 'codegen', '--', '--service', services.dev.url], { TG_SECRET: services.dev.secret });
    const vite = new Running(app, 'npm', ['run', 'dev'], { PORT: '0', BFF_URL: services.dev.url });
    running.push(vite);
    await sh(app, 'npm', ['run', 'build']);
    const appDir = '../react-vite/dist'; // as the README says it, from bff/
    await Promise.all([
      startService('prod', bff, { APP_DIR: appDir }),
      // Sessions of 5 s: the app's expiry events within a test.
      startService('short', bff, { APP_DIR: appDir, SESSION_IDLE_TIMEOUT: '5', SESSION_ABSOLUTE_TIMEOUT: '5' }),
    ]);
    devServer = (await vite.match('the Vite dev server', /Local:\s+(http:\/\/\S+?)\/?\s/))[1]!;
    browser = await launchChromium();
  }, 600_000); // the release (when this file builds it), three installs and a production build on a busy machine
  afterAll(async () => {
    await browser?.close();
    await Promise.all(running.map((r) => r.stop()));
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

  test('when the Vite dev server proxies to the service as vite.config.ts says, then login, a generated query and logout work', async () => {
    expect(await walkThrough(devServer, services.dev.secret)).toEqual([]);
  });

  test('when the service serves the build (APP_DIR), then the same walk-through works under its CSP', async () => {
    const { url, secret } = services.prod;
    expect(await walkThrough(url, secret)).toEqual([]);
    // The app's own route, opened directly, is the app (the page fallback), and its assets are cached for good.
    const page = await browser.context.newPage();
    const response = await page.goto(`${url}/people/alice`);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.getByRole('button', { name: 'Log in with the secret' }).waitFor();
    const asset = /src="(\/assets\/index-[\w-]{8}\.js)"/.exec(await (await fetch(url)).text())?.[1];
    expect((await fetch(`${url}${asset}`)).headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    await page.close();
  });

  test('when the session nears its end and ends, then the app says so from the SDK events and shows the login', async () => {
    const page = await browser.context.newPage();
    await page.goto(services.short.url);
    await page.getByLabel('Secret', { exact: true }).fill(services.short.secret);
    await page.getByRole('button', { name: 'Log in with the secret' }).click();
    // Under a minute left at once: sessionexpiring fires on login; sessionend when the service says it is over.
    await page.getByText(/^Your session ends at /).waitFor();
    await page.getByText('Your session has ended; log in again.').waitFor();
    await page.getByRole('button', { name: 'Log in with the secret' }).waitFor();
    await page.close();
  });

  test('when the generator runs against the service, then it writes the src/queries.ts the release ships', async () => {
    // The first line names the service it read from (here a random port); the rest must be the same.
    const body = (text: string) => text.split('\n').slice(1).join('\n');
    expect(body(await readFile(path.join(app, 'src/queries.ts'), 'utf8'))).toBe(body(shippedQueries));
  });
});
