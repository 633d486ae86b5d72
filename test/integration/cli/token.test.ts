import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { maskSecret } from '../../../packages/client/src/errors.js';
import type { JsonObject } from '../../../packages/client/src/parse-json.js';
import { extractToken } from '../../../packages/client/src/parse-token-response.js';
import { json, jsonError, makeHome, runCli } from './cli-harness.js';

let sim: SimulatorHandle;
let home: Awaited<ReturnType<typeof makeHome>>;
let secret: string;
const envOf = (s: SimulatorHandle, version = '3.9.3') => ({
  TG_GSQL_URL: s.gsqlUrl,
  TG_RESTPP_URL: s.restppUrl,
  TG_VERSION: version,
});
const token = (args: string[], opts: { env?: Record<string, string>; input?: string } = {}) =>
  runCli(['token', ...args], { home: home.dir, env: { ...envOf(sim), ...opts.env }, input: opts.input });
const nowSec = (): number => Math.floor(Date.now() / 1000);
const expiryOf = (t: string): number | undefined => sim.tokens().find((x) => x.token === t)?.expiresAt;

/**
 * A token for the refresh and delete cases, asked of the data server directly (the body the CLI sends): `tgbff
 * token get` is the first cases' subject, so those cases start one CLI process each instead of two.
 */
async function mint(lifetime = '1000'): Promise<string> {
  const res = await fetch(`${sim.restppUrl}/requesttoken`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ secret, lifetime }),
  });
  const tok = extractToken((await res.json()) as JsonObject);
  if (tok === undefined) throw new Error(`no token minted (HTTP ${res.status})`);
  return tok;
}

beforeAll(async () => {
  home = await makeHome();
  sim = await startSimulator();
  secret = sim.createSecret({ graph: 'social', alias: 'cli_tokens' }).value;
});
afterAll(async () => {
  await Promise.all([sim.close(), home.remove()]);
});

describe('tgbff token, as a child process against the simulator', () => {
  it('when TG_SECRET holds a secret, then a live token and its expiry are printed', async () => {
    const r = await token(['get'], { env: { TG_SECRET: secret } });
    expect(r.code).toBe(0);
    const [, tok, iso, epoch] = /^token: +(\S+)\nexpires: (\S+) \((\d+)\)\n$/.exec(r.stdout) ?? [];
    expect(expiryOf(tok!)).toBe(Number(epoch));
    expect(new Date(iso!).getTime()).toBe(Number(epoch) * 1000);
  });

  it('when the secret is piped on stdin with --lifetime, then the token lives that long', async () => {
    const r = await token(['get', '--json', '--lifetime', '600'], { input: `${secret}\n` });
    expect(r.code).toBe(0);
    const doc = json(r);
    expect(Math.abs((doc.expiresAt as number) - (nowSec() + 600))).toBeLessThan(60);
    expect(expiryOf(doc.token as string)).toBe(doc.expiresAt);
    expect(doc.expiresAtIso).toBe(new Date((doc.expiresAt as number) * 1000).toISOString());
  });

  it('when a secret is offered as a flag, then it is refused as an unknown option', async () => {
    const r = await token(['get', '--secret', secret]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown option --secret');
    expect(r.stderr).not.toContain(secret);
  });

  it('when neither TG_SECRET nor stdin has a secret, then exit 2 says how to give one', async () => {
    const r = await token(['get', '--json'], { input: '\n' });
    expect(r.code).toBe(2);
    expect(jsonError(r)).toEqual({
      code: 'usage',
      message: 'no secret given: set TG_SECRET or pipe the secret on standard input',
    });
  });

  it('when the secret is wrong, then exit 3 says where it came from and does not print it', async () => {
    const wrong = 'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz1';
    const r = await token(['get', '--json'], { input: wrong });
    expect(r.code).toBe(3);
    expect(jsonError(r)).toMatchObject({
      code: 'bad_credentials',
      message: expect.stringContaining('rejected the secret from standard input'),
    });
    expect(r.stderr).not.toContain(wrong);
  });

  it('when a token is refreshed, then its new expiry is now + lifetime on the server', async () => {
    const tok = await mint('100');
    const r = await token(['refresh', '--token', tok, '--lifetime', '5000', '--json'], { env: { TG_SECRET: secret } });
    expect(r.code).toBe(0);
    const doc = json(r);
    expect(Math.abs((doc.expiresAt as number) - (nowSec() + 5000))).toBeLessThan(60);
    expect(expiryOf(tok)).toBe(doc.expiresAt);
  });

  it('when an unknown token is refreshed, then exit 4 names it masked', async () => {
    const ghost = 'ghost0000000000000000000000000001';
    const r = await token(['refresh', '--token', ghost], { env: { TG_SECRET: secret } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`token ${maskSecret(ghost)} does not exist`);
    expect(r.stderr).not.toContain(ghost);
  });

  it('when a token is deleted, then the server no longer has it', async () => {
    const tok = await mint();
    const r = await token(['delete', '--token', tok], { env: { TG_SECRET: secret } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`deleted token ${maskSecret(tok)}\n`);
    expect(expiryOf(tok)).toBeUndefined();
  });

  it('when a missing token is deleted, then it is ignored, unless --strict makes it exit 4', async () => {
    const tok = await mint();
    sim.revokeToken(tok);
    const lenient = await token(['delete', '--token', tok, '--json'], { env: { TG_SECRET: secret } });
    expect(lenient.code).toBe(0);
    expect(json(lenient)).toEqual({ deleted: false, token: maskSecret(tok) });
    const strict = await token(['delete', '--token', tok, '--strict', '--json'], { env: { TG_SECRET: secret } });
    expect(strict.code).toBe(4);
    expect(jsonError(strict).code).toBe('not_found');
    expect(strict.stdout + strict.stderr).not.toContain(tok);
  });

  it('when neither --token nor TG_TOKEN is given for refresh or delete, then exit 2 before the secret is read', async () => {
    for (const sub of ['refresh', 'delete']) {
      // No TG_SECRET and nothing piped: had the secret been read first, the message would be about it.
      const r = await token([sub], { env: { TG_TOKEN: '  ' } });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('no token given: pass --token or set TG_TOKEN');
    }
  });

  it('when the token comes from TG_TOKEN, then refresh and delete use it and print it only masked', async () => {
    const tok = await mint('1000');
    const refreshed = await token(['refresh', '--lifetime', '5000', '--json'], {
      env: { TG_SECRET: secret, TG_TOKEN: tok },
    });
    expect(refreshed.code).toBe(0);
    expect(expiryOf(tok)).toBeGreaterThanOrEqual(nowSec() + 4990);
    const deleted = await token(['delete'], { env: { TG_SECRET: secret, TG_TOKEN: tok } });
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toBe(`deleted token ${maskSecret(tok)}\n`);
    expect(expiryOf(tok)).toBeUndefined();
  });

  it('when both --token and TG_TOKEN are given, then the flag wins', async () => {
    const tok = await mint('1000');
    const r = await token(['delete', '--token', tok, '--json'], {
      env: { TG_SECRET: secret, TG_TOKEN: 'abcdefabcdefabcdefabcdefabcdef12' },
    });
    expect(json(r)).toEqual({ deleted: true, token: maskSecret(tok) });
  });

  it('when the data server has authentication off, then exit 5 says so', async () => {
    const open = await startSimulator({ authEnabled: false });
    try {
      for (const args of [['get'], ['delete', '--token', 'abcdefabcdefabcdefabcdefabcdef12']]) {
        const r = await runCli(['token', ...args, '--json'], {
          home: home.dir,
          env: { ...envOf(open), TG_SECRET: secret },
        });
        expect(r.code).toBe(5);
        expect(jsonError(r)).toMatchObject({
          code: 'auth_disabled',
          message: expect.stringContaining('authentication is disabled'),
        });
      }
    } finally {
      await open.close();
    }
  });

  it('when the data server is not listening, then exit 6 names the URL and the flag', async () => {
    const r = await token(['get', '--restpp-url', 'http://127.0.0.1:1'], { env: { TG_SECRET: secret } });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('cannot reach the data server at http://127.0.0.1:1');
    expect(r.stderr).toContain('--restpp-url');
  });

  it('when the server is 4.1, then get, refresh and delete work on its JWT tokens', async () => {
    const sim41 = await startSimulator({ version: '4.1.0' });
    try {
      const env = { ...envOf(sim41, '4.1.0'), TG_SECRET: sim41.createSecret({ alias: 'jwt_s' }).value };
      const got = await runCli(['token', 'get', '--json'], { home: home.dir, env });
      expect(got.code).toBe(0);
      const tok = json(got).token as string;
      expect(tok.split('.')).toHaveLength(3);
      const refreshed = await runCli(['token', 'refresh', '--token', tok, '--json'], { home: home.dir, env });
      expect(refreshed.code).toBe(0);
      const deleted = await runCli(['token', 'delete', '--token', json(refreshed).token as string, '--json'], {
        home: home.dir,
        env,
      });
      expect(deleted.code).toBe(0);
    } finally {
      await sim41.close();
    }
  });
});
