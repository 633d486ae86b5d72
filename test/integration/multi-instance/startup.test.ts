import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { CSRF, call, login } from './cluster.js';
import { messagesOf } from '../../helpers/start-outcome.js';

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs dist/main.js with only `env` (and PATH) until it exits; a start that does not end fails the test. */
function runToExit(env: Record<string, string>, timeoutMs = 20_000): Promise<Exit> {
  const proc = spawn(process.execPath, [path.resolve('dist/main.js')], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', METRICS_PORT: '0', ...env },
    cwd: tmpdir(), // not the checkout, whose .env (if a developer has one) would be read
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`still running after ${timeoutMs} ms:\n${stdout}${stderr}`));
    }, timeoutMs);
    proc.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('start-up refusals', () => {
  test('when NODE_ENV=production lacks TG_RESTPP_URL, Redis and the session secrets, then it exits 1 naming each key', async () => {
    const run = await runToExit({ NODE_ENV: 'production' });

    expect(run.code).toBe(1);
    for (const key of ['TG_RESTPP_URL', 'REDIS_URL', 'SESSION_SECRET', 'SESSION_ENCRYPTION_KEYS']) {
      expect(messagesOf(run.stderr)).toMatch(new RegExp(`^\\s*${key}: `, 'm'));
    }
    expect(run.stdout).not.toContain('listening');
  });

  test('when production values are bad, then it names each key and prints none of the values', async () => {
    const secret = `too-short-${randomBytes(6).toString('hex')}`;
    const key = `k1:${randomBytes(16).toString('base64')}`; // 16 bytes, AES-256 needs 32
    const password = `pw-${randomBytes(8).toString('hex')}`;
    const run = await runToExit({
      NODE_ENV: 'production',
      TG_RESTPP_URL: 'http://127.0.0.1:9000',
      REDIS_URL: `http://user:${password}@127.0.0.1:6379`,
      SESSION_SECRET: secret,
      SESSION_ENCRYPTION_KEYS: key,
    });

    expect(run.code).toBe(1);
    for (const name of ['REDIS_URL', 'SESSION_SECRET', 'SESSION_ENCRYPTION_KEYS'])
      expect(messagesOf(run.stderr)).toMatch(new RegExp(`^\\s*${name}: `, 'm'));
    const printed = run.stdout + run.stderr;
    for (const value of [secret, key, key.slice(3), password]) expect(printed).not.toContain(value);
  });

  test('when PORT is not a number, then it exits 1 naming PORT', async () => {
    const run = await runToExit({ NODE_ENV: 'development', PORT: 'abc' });

    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^\s*PORT: /m);
    expect(run.stdout).not.toContain('Demo secret');
  });
});

describe('npm start on a fresh machine (no TigerGraph, no Redis configured)', () => {
  let service: ServiceProcess | undefined;
  afterAll(() => service?.kill());

  test('when TG_RESTPP_URL is unset outside production, then it runs the simulator in-process and its printed demo secret logs in end to end', async () => {
    service = await startServiceProcess({ NODE_ENV: 'development', COOKIE_SECURE: 'false' }, 30_000);
    const demo = /Demo secret for the built-in simulator \(graph "social"\): (\S+)/.exec(service.output())?.[1];
    expect(demo).toBeDefined();
    expect(service.output()).toContain('running the TigerGraph simulator in-process');
    expect(service.output()).toContain('embedded memory store');

    const cookie = await login(service.url, demo!);
    const echo = await call(service.url, '/api/echo', cookie);
    expect([echo.status, echo.body.message]).toEqual([200, 'Hello GSQL']);
    const session = await call(service.url, '/auth/session', cookie);
    expect([session.status, session.body.graph]).toEqual([200, 'social']);
    const logout = await fetch(`${service.url}/auth/logout`, { method: 'POST', headers: { ...CSRF, Cookie: cookie } });
    expect(logout.status).toBe(204);
    expect((await call(service.url, '/api/echo', cookie)).status).toBe(401);
    // The start-up banner is the one place the secret may appear; the login must not log it again.
    expect(service.output().split(demo!)).toHaveLength(2);
    expect(await service.stop('SIGTERM')).toBe(0);
  });
});
