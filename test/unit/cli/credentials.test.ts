import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError, ExitCode } from '../../../src/cli/cli-error.js';
import type { LoadedConfig } from '../../../src/cli/config-file.js';
import { resolveCredentials, type CredentialInputs } from '../../../src/cli/credentials.js';
import type { Prompter } from '../../../src/cli/prompt.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'tgbff-creds-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const config: LoadedConfig = {
  path: '/etc/cfg.json',
  config: { host: 'db.example', username: 'cfg-user', password: 'cfg-pass' },
};

/** Scripted answers stand in for a person here; the real terminal prompt is driven through a pty in test/integration/cli. */
function scripted(answers: string[]): Prompter & { asked: string[] } {
  const asked: string[] = [];
  const next = async (label: string): Promise<string> => {
    asked.push(label);
    return answers.shift() ?? '';
  };
  return { asked, ask: next, askHidden: next };
}

const inputs = (over: Partial<CredentialInputs>): CredentialInputs => ({
  env: {},
  homeDir: home,
  server: 'http://db.example:14240',
  host: 'db.example',
  config: undefined,
  prompter: undefined,
  ...over,
});

async function writeNetrc(text: string, name = '.netrc'): Promise<string> {
  const path = join(home, name);
  await writeFile(path, text);
  await chmod(path, 0o600);
  return path;
}

describe('admin credential resolution', () => {
  it('when --user and TG_PASSWORD are set, then they win over netrc, config and prompt', async () => {
    await writeNetrc('machine db.example login n password np');
    const prompter = scripted(['x', 'y']);
    const got = await resolveCredentials(
      inputs({ user: 'flag-user', env: { TG_PASSWORD: 'env-pass' }, config, prompter }),
    );
    expect(got).toEqual({
      creds: { username: 'flag-user', password: 'env-pass' },
      source: '--user and TG_PASSWORD',
      skipped: [],
    });
    expect(prompter.asked).toEqual([]);
  });

  it('when ~/.netrc has an entry for the host, then it wins over the config file', async () => {
    const path = await writeNetrc('machine other login o password op\nmachine db.example login n password np');
    const got = await resolveCredentials(inputs({ config }));
    expect(got).toEqual({
      creds: { username: 'n', password: 'np' },
      source: `netrc file ${path} (machine db.example)`,
      skipped: [],
    });
  });

  it('when NETRC names a file and --netrc-default is given, then it is read instead of ~/.netrc, and its default entry serves any host', async () => {
    await writeNetrc('machine db.example login home password hp');
    const path = await writeNetrc('default login d password dp', 'custom-netrc');
    const got = await resolveCredentials(inputs({ env: { NETRC: path }, netrcDefault: true }));
    expect(got.creds).toEqual({ username: 'd', password: 'dp' });
    expect(got.source).toContain('default entry');
  });

  it('when netrc has only a default entry and no opt-in, then it is passed over and the error says how to opt in', async () => {
    const path = await writeNetrc('default login d password dp-secret');
    const err = await resolveCredentials(inputs({})).catch((e: unknown) => e);
    expect(err).toMatchObject({ exitCode: ExitCode.usage, code: 'no_credentials' });
    expect((err as Error).message).toContain(
      `the default entry of netrc file ${path} (it serves any host only with --netrc-default)`,
    );
    expect((err as Error).message).not.toContain('dp-secret');
  });

  it.each([
    ['a gsqlUrl of another port', { gsqlUrl: 'http://db.example:9999' }, 'http://db.example:9999'],
    ['a gsqlUrl of another scheme', { gsqlUrl: 'https://db.example:14240' }, 'https://db.example:14240'],
    ['another host', { host: 'tg.internal.example' }, 'tg.internal.example'],
    ['no host (so the default 127.0.0.1)', {}, '127.0.0.1'],
  ])('when the config file names %s, then its credentials are not sent to db.example', async (_what, where, named) => {
    const stored: LoadedConfig = {
      path: '/etc/cfg.json',
      config: { ...where, username: 'cfg-user', password: 'cfg-pass' },
    };
    const err = await resolveCredentials(inputs({ config: stored })).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'no_credentials' });
    expect((err as Error).message).toContain(
      `config file /etc/cfg.json (its credentials are for ${named}, not http://db.example:14240)`,
    );
  });

  it('when the config file names the host (any case) or the same origin, then its credentials are used', async () => {
    for (const where of [{ host: 'DB.example' }, { gsqlUrl: 'http://db.example:14240/' }]) {
      const stored: LoadedConfig = {
        path: '/etc/cfg.json',
        config: { ...where, username: 'cfg-user', password: 'cfg-pass' },
      };
      expect((await resolveCredentials(inputs({ config: stored }))).source).toBe('config file /etc/cfg.json');
    }
  });

  it('when NETRC names a missing file, then it is a setup error rather than a silent skip', async () => {
    const err = await resolveCredentials(inputs({ env: { NETRC: join(home, 'missing') }, config })).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(ExitCode.usage);
    expect((err as CliError).message).toContain('missing');
  });

  it('when --user is given without TG_PASSWORD, then the netrc entry for that login is used', async () => {
    await writeNetrc('machine db.example login a password pa\nmachine db.example login b password pb');
    expect((await resolveCredentials(inputs({ user: 'b' }))).creds).toEqual({ username: 'b', password: 'pb' });
  });

  it('when netrc has nothing for the host, then the config file is used', async () => {
    await writeNetrc('machine other login o password op');
    expect(await resolveCredentials(inputs({ config }))).toEqual({
      creds: { username: 'cfg-user', password: 'cfg-pass' },
      source: 'config file /etc/cfg.json',
      skipped: [],
    });
  });

  it('when --user names someone else than the config file, then the config is skipped for the prompt', async () => {
    const prompter = scripted(['typed-pass']);
    const got = await resolveCredentials(inputs({ user: 'someone', config, prompter }));
    expect(got).toEqual({ creds: { username: 'someone', password: 'typed-pass' }, source: 'the prompt', skipped: [] });
    expect(prompter.asked).toEqual(['Password for someone@db.example: ']);
  });

  it('when nothing else has credentials and there is a terminal, then user and password are asked for', async () => {
    const prompter = scripted(['typed-user', 'typed-pass']);
    expect((await resolveCredentials(inputs({ prompter }))).creds).toEqual({
      username: 'typed-user',
      password: 'typed-pass',
    });
    expect(prompter.asked).toEqual(['Admin user for db.example: ', 'Password for typed-user@db.example: ']);
  });

  it('when the prompt gets an empty password, then it is a setup error', async () => {
    const err = await resolveCredentials(inputs({ user: 'u', prompter: scripted(['']) })).catch((e: unknown) => e);
    expect(err).toMatchObject({ exitCode: ExitCode.usage, code: 'no_credentials' });
  });

  it('when nothing has credentials and there is no terminal, then the error lists every way to give them', async () => {
    const err = await resolveCredentials(inputs({})).catch((e: unknown) => e);
    expect(err).toMatchObject({ exitCode: ExitCode.usage, code: 'no_credentials' });
    expect((err as Error).message).toMatch(/--user NAME with TG_PASSWORD.*machine db\.example.*config file.*terminal/);
  });

  it('when TG_PASSWORD is set without --user, then the error says --user is missing', async () => {
    const err = await resolveCredentials(inputs({ env: { TG_PASSWORD: 'pw-value' } })).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(
      /^no admin credentials found\. TG_PASSWORD is set, but it needs --user NAME\. Give them one of these ways: --user NAME with TG_PASSWORD, /,
    );
    expect((err as Error).message).not.toContain('pw-value');
  });
});
