import { afterEach, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintJwt, rsaKeys, times } from '../../helpers/jwt-mint.js';
import { untilMatch } from '../../helpers/wait.js';
import { call } from './sim-http.js';

// The compiled CLI (jest's globalSetup builds dist/ first), run as npm run sim would run it.
const CLI = join(process.cwd(), 'dist', 'simulator', 'cli.js');

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function runCli(args: string[]): Run {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Waits until the CLI printed `pattern` (wait.ts's untilMatch); a failure tells what it printed. */
const printed = (run: Run, pattern: RegExp): Promise<RegExpExecArray> =>
  untilMatch(`the CLI to print ${pattern}`, run.stdout, pattern).catch((err: Error) => {
    throw new Error(`${err.message}; exit ${run.child.exitCode}, stdout=${run.stdout()} stderr=${run.stderr()}`);
  });

describe('simulator CLI as a child process', () => {
  const running: Run[] = [];
  let dir: string | undefined;
  afterEach(async () => {
    for (const run of running.splice(0)) if (run.child.exitCode === null) run.child.kill('SIGKILL');
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('when started, then it prints URLs and a working demo secret, and SIGTERM exits 0', async () => {
    const run = runCli(['--restpp-port', '0', '--gsql-port', '0', '--version', '3.9.3']);
    running.push(run);
    const restpp = (await printed(run, /RESTPP \(data\):\s+(\S+)/))[1]!;
    const secret = (await printed(run, /Demo secret:\s+([a-z0-9]{32})/))[1]!;
    expect(run.stdout()).toMatch(/GSQL \(admin\):\s+http:\/\/127\.0\.0\.1:\d+/);
    const res = await call(`${restpp}/requesttoken`, { method: 'POST', body: JSON.stringify({ secret }) });
    expect(res.json).toMatchObject({ error: false, code: 'REST-0000' });
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('when a flag is unknown, then it prints why and exits 2', async () => {
    const run = runCli(['--no-such-flag']);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toMatch(/Unknown option '--no-such-flag'/);
    expect(run.stderr()).toContain('Usage:');
  });

  it('when --help is given, then it prints usage and exits 0', async () => {
    const run = runCli(['--help']);
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toContain('--auth-failure-status');
  });

  it('when --config adds a user and a secret, then that secret mints a token; a bad config exits 2', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sim-cli-'));
    const good = join(dir, 'good.json');
    await writeFile(
      good,
      JSON.stringify({
        graphs: ['extra'],
        users: [{ name: 'dora', password: 'dora-pw', graphs: ['extra'] }],
        secrets: [{ user: 'dora', graph: 'extra', alias: 'dora_key', value: 'doradoradoradoradoradoradora1234' }],
      }),
    );
    const run = runCli(['--restpp-port', '0', '--gsql-port', '0', '--config', good]);
    running.push(run);
    const restpp = (await printed(run, /RESTPP \(data\):\s+(\S+)/))[1]!;
    await printed(run, /Demo secret:/);
    const res = await call(`${restpp}/requesttoken`, {
      method: 'POST',
      body: '{"secret":"doradoradoradoradoradoradora1234"}',
    });
    expect(res.json.error).toBe(false);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);

    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ users: [{ name: 'x' }] }));
    const failed = runCli(['--restpp-port', '0', '--gsql-port', '0', '--config', bad]);
    expect(await failed.exited).toBe(2);
    expect(failed.stderr()).toMatch(/invalid simulator config .*users\.0\.password/);
  });

  it('when --config sets jwt (key from an @file) and authFailureStatus 403, then an IdP-style JWT works and a bad one is a 403', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sim-cli-'));
    const keys = rsaKeys('cli');
    await writeFile(join(dir, 'jwks.json'), keys.jwks);
    const config = join(dir, 'jwt.json');
    await writeFile(
      config,
      JSON.stringify({ authFailureStatus: 403, jwt: { rsaPublicKey: `@${join(dir, 'jwks.json')}`, audience: 'bff' } }),
    );
    const run = runCli(['--version', '3.10.0', '--restpp-port', '0', '--gsql-port', '0', '--config', config]);
    running.push(run);
    const restpp = (await printed(run, /RESTPP \(data\):\s+(\S+)/))[1]!;
    expect(run.stdout()).toContain('(RESTPP auth enabled, external JWTs verified, refusals as 403)');
    const token = (aud: string) =>
      mintJwt({ alg: 'RS256', key: keys.privateKey, kid: 'cli' }, { sub: 'tigergraph', aud, ...times(120) });
    expect((await call(`${restpp}/echo`, { headers: { authorization: `Bearer ${token('bff')}` } })).status).toBe(200);
    const refused = await call(`${restpp}/echo`, { headers: { authorization: `Bearer ${token('other')}` } });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toMatch(/contains audience \[other\], which doesn't include the configured one bff$/);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);

    await writeFile(config, JSON.stringify({ jwt: { audience: 'bff' } }));
    const failed = runCli(['--restpp-port', '0', '--gsql-port', '0', '--config', config]);
    expect(await failed.exited).toBe(2);
    expect(failed.stderr()).toMatch(/invalid simulator config .*jwt/);
  });
});
