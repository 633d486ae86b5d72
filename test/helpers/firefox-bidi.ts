import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'undici';
import { until, WAIT_MS } from './wait.js';

/**
 * Debian's Firefox ESR driven over WebDriver BiDi, its standard remote protocol. playwright-core's own
 * Firefox needs Playwright's patched build (not downloadable here), and its BiDi mode asks for commands
 * this ESR does not have yet, so the few commands a page test needs are spoken directly.
 */
export const FIREFOX_PATH = '/usr/bin/firefox-esr';

export function firefoxAvailability(): { run: boolean; reason?: string } {
  if (existsSync(FIREFOX_PATH)) return { run: true };
  const hint = `${FIREFOX_PATH} is missing; install it with: apt-get install -y firefox-esr`;
  return process.env.CI === 'true' ? { run: true, reason: hint } : { run: false, reason: hint };
}

export interface BidiCookie {
  name: string;
  value: { type: string; value: string };
  secure: boolean;
  httpOnly: boolean;
  sameSite: string;
  path: string;
}

export interface FirefoxPage {
  navigate(url: string): Promise<void>;
  /** Runs an expression (awaiting a promise) in the page and returns its JSON-able result. */
  evaluate<T>(expression: string): Promise<T>;
  /** Polls an expression until it is truthy (a throw, as while the page loads, counts as not yet). */
  waitFor(expression: string, timeoutMs?: number): Promise<void>;
  cookies(): Promise<BidiCookie[]>;
  close(): Promise<void>;
}

export async function launchFirefox(): Promise<FirefoxPage> {
  if (!existsSync(FIREFOX_PATH)) throw new Error(firefoxAvailability().reason);
  const profile = await mkdtemp(join(tmpdir(), 'tgbff-firefox-'));
  const proc: ChildProcess = spawn(FIREFOX_PATH, ['--headless', '--remote-debugging-port=0', '--profile', profile], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HOME: profile, MOZ_CRASHREPORTER_DISABLE: '1' },
  });
  const endpoint = await new Promise<string>((resolve, reject) => {
    let seen = '';
    // How long a start may take on a busy machine before it counts as failed.
    const timer = setTimeout(() => reject(new Error(`Firefox did not open WebDriver BiDi:\n${seen}`)), 60_000);
    const look = (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /WebDriver BiDi listening on (ws:\/\/\S+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    proc.stdout!.on('data', look);
    proc.stderr!.on('data', look);
    proc.once('exit', (code) => reject(new Error(`Firefox exited ${code}:\n${seen}`)));
  });

  const ws = new WebSocket(`${endpoint}/session`);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve());
    ws.addEventListener('error', () => reject(new Error('could not connect to WebDriver BiDi')));
  });
  let nextId = 1;
  const waiting = new Map<number, { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  ws.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as {
      id?: number;
      type: string;
      result?: Record<string, unknown>;
      error?: string;
      message?: string;
    };
    if (message.id === undefined) return; // events
    const pending = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.type === 'success') pending?.resolve(message.result ?? {});
    else pending?.reject(new Error(`${message.error}: ${message.message}`));
  });
  const send = (method: string, params: Record<string, unknown>) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });

  await send('session.new', { capabilities: {} });
  const tree = (await send('browsingContext.getTree', {})) as { contexts: Array<{ context: string }> };
  const context = tree.contexts[0]!.context;

  const evaluate = async <T>(expression: string): Promise<T> => {
    const result = (await send('script.evaluate', {
      expression: `(async () => JSON.stringify(await (${expression})))()`,
      target: { context },
      awaitPromise: true,
      resultOwnership: 'none',
    })) as { type: string; result?: { value?: string }; exceptionDetails?: { text: string } };
    if (result.type === 'exception') throw new Error(`page threw: ${result.exceptionDetails?.text}`);
    const text = result.result?.value;
    return (text === undefined ? undefined : JSON.parse(text)) as T;
  };

  return {
    async navigate(url) {
      await send('browsingContext.navigate', { context, url, wait: 'complete' });
    },
    evaluate,
    async waitFor(expression, timeoutMs = WAIT_MS) {
      await until(expression, () => evaluate<boolean>(`Boolean(${expression})`), { timeoutMs, intervalMs: 100 });
    },
    async cookies() {
      const result = (await send('storage.getCookies', {})) as { cookies: BidiCookie[] };
      return result.cookies;
    },
    async close() {
      await send('session.end', {}).catch(() => undefined);
      ws.close();
      proc.kill('SIGKILL');
      await new Promise((resolve) => proc.once('exit', resolve));
      await rm(profile, { recursive: true, force: true });
    },
  };
}
