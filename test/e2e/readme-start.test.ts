import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, mkdir, copyFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Response } from 'playwright-core';
import { chromiumAvailability, launchChromium, type HeadlessChromium } from '../helpers/chromium.js';

// The README's own start command, from a copy of the files git would commit (what a fresh clone has), with no
// setting at all: open the URL it prints in Chromium, log in with the secret it prints, run a query, log
// out. `npm install` is left out of the command: the copy links this checkout's node_modules (CI's npm ci).
const availability = chromiumAvailability();
if (!availability.run) console.warn(`Skipping the README start test: ${availability.reason}`);
const describeInBrowser = availability.run ? describe : describe.skip;

const REPO = process.cwd();

async function readmeStartCommand(): Promise<string> {
  const readme = await readFile(join(REPO, 'README.md'), 'utf8');
  const setup = /## Set-up\s+```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const line = setup.split('\n').find((l) => /\bnpm start\b/.test(l));
  if (!line) throw new Error('README Set-up has no npm start line');
  return line
    .replace(/#.*$/, '')
    .replace(/^\s*npm install\s*&&\s*/, '')
    .trim();
}

async function freshCopy(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tgbff-readme-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO,
    encoding: 'utf8',
  })
    .split('\0')
    .filter(Boolean);
  for (const file of files) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await copyFile(join(REPO, file), join(dir, file)).catch(() => undefined); // deleted but not yet committed
  }
  await symlink(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer().once('error', () => resolve(false));
    probe.listen(port, () => probe.close(() => resolve(true)));
  });

describeInBrowser('the README start command, in a browser', () => {
  let dir: string;
  let run: ChildProcess | undefined;
  let browser: HeadlessChromium | undefined;
  let out = '';

  afterAll(async () => {
    await browser?.close();
    if (run?.pid !== undefined) {
      try {
        process.kill(-run.pid, 'SIGTERM'); // npm and the service it started
      } catch {
        // already gone
      }
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const waitForOutput = (pattern: RegExp, timeoutMs: number) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${pattern} in output:\n${out}`)), timeoutMs);
      const check = () => {
        const match = pattern.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve(match);
        }
      };
      run!.stdout!.on('data', check);
      run!.once('exit', (code) => reject(new Error(`exited ${code}:\n${out}`)));
      check();
    });

  test('when a new user runs it and follows what it prints, then login, a query and logout work and no token or secret reaches the page', async () => {
    const command = await readmeStartCommand();
    dir = await freshCopy();
    // The only settings a user might need: other ports when the defaults are taken on this machine.
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir };
    if (!(await portFree(8080))) env.PORT = '0';
    if (!(await portFree(9464))) env.METRICS_PORT = '0';
    run = spawn('sh', ['-c', command], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    run.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    run.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));

    // npm start builds first: on a machine whose cores are taken that alone took over two minutes.
    const [, url] = await waitForOutput(/open (http:\/\/\S+) in a browser/, 300_000);
    const [, secret] = await waitForOutput(/Demo secret[^:]*: (\S+)/, 5_000);
    const [, restppUrl] = await waitForOutput(/"restppUrl":"(http:[^"]+)"/, 5_000);
    expect(url).toMatch(/^http:\/\/localhost:\d+\/$/);

    browser = await launchChromium();
    const page = await browser.context.newPage();
    const seen: string[] = [];
    const responses: Response[] = [];
    page.on('console', (m) => seen.push(m.text()));
    page.on('pageerror', (e) => seen.push(`pageerror: ${e.message}`));
    page.on('response', (r) => void responses.push(r));

    await page.goto(url!);
    await page.locator('#login-view').waitFor({ state: 'visible' });
    await page.fill('#secret', secret!);
    await page.click('#login-button');
    await page.locator('#app-view').waitFor({ state: 'visible' });
    await page.click('#run-button');
    await page.locator('#output', { hasText: 'alice' }).waitFor();

    const cookies = await browser.context.cookies();
    expect(cookies.map((c) => [c.name, c.secure, c.httpOnly, c.sameSite])).toEqual([
      ['__Host-tgbff', true, true, 'Strict'],
    ]);
    const tokens = ((await (await fetch(`${restppUrl}/__sim/tokens`)).json()) as Array<{ token: string }>).map(
      (t) => t.token,
    );
    expect(tokens.length).toBeGreaterThan(0); // the query ran on a real token, which the page must never see
    const storage = await page.evaluate<string>(
      'JSON.stringify([document.cookie, { ...localStorage }, { ...sessionStorage }])',
    );

    await page.click('#logout-button');
    await page.locator('#login-view').waitFor({ state: 'visible' });

    const visible = [storage, page.url(), ...seen, ...cookies.map((c) => c.value)];
    for (const response of responses) {
      visible.push(JSON.stringify(await response.allHeaders()));
      visible.push(await response.text().catch(() => ''));
    }
    for (const value of [secret!, ...tokens]) {
      for (const text of visible) expect(text.includes(value)).toBe(false);
    }
    expect(seen.filter((t) => /content security policy|refused to|pageerror/i.test(t))).toEqual([]);
  }, 420_000);
});
