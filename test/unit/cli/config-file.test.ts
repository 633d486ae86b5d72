import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError, ExitCode } from '../../../src/cli/cli-error.js';
import { loadConfigFile } from '../../../src/cli/config-file.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'tgbff-config-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

async function writeConfig(
  content: string,
  mode: number,
  path = join(home, '.config', 'tgbff', 'config.json'),
): Promise<string> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, content);
  await chmod(path, mode);
  return path;
}

async function failure(promise: Promise<unknown>): Promise<CliError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof CliError)) throw new Error(`expected a CliError, got ${String(err)}`);
  return err;
}

describe('config file', () => {
  it('when there is no config file in the home directory, then there is no config', async () => {
    await expect(loadConfigFile({}, home)).resolves.toBeUndefined();
  });

  it('when ~/.config/tgbff/config.json is mode 600, then its settings and credentials are read', async () => {
    const path = await writeConfig(
      JSON.stringify({ gsqlUrl: 'http://h:14240', version: '4.1.0', username: 'u', password: 'pw' }),
      0o600,
    );
    await expect(loadConfigFile({}, home)).resolves.toEqual({
      path,
      config: { gsqlUrl: 'http://h:14240', version: '4.1.0', username: 'u', password: 'pw' },
    });
  });

  it('when TGBFF_CONFIG names a file, then that file is used instead', async () => {
    const path = await writeConfig('{"username":"other","password":"pw"}', 0o400, join(home, 'elsewhere.json'));
    await expect(loadConfigFile({ TGBFF_CONFIG: path }, home)).resolves.toMatchObject({
      config: { username: 'other' },
    });
  });

  it('when TGBFF_CONFIG names a missing file, then it is a setup error naming the path', async () => {
    const err = await failure(loadConfigFile({ TGBFF_CONFIG: join(home, 'nope.json') }, home));
    expect(err.exitCode).toBe(ExitCode.usage);
    expect(err.message).toContain('nope.json');
  });

  it.each(['644', '640', '604'])('when the file is mode %s, then it is refused with the chmod to run', async (mode) => {
    const path = await writeConfig('{"username":"u","password":"pw"}', parseInt(mode, 8));
    const err = await failure(loadConfigFile({}, home));
    expect(err.code).toBe('config_file');
    expect(err.message).toContain(`run: chmod 600 ${path}`);
    expect(err.message).toContain(`mode ${mode}`);
  });

  it('when the file is not JSON, then the message does not quote its content', async () => {
    await writeConfig('{"username":"u","password":"s3cr3t-value" oops', 0o600);
    const err = await failure(loadConfigFile({}, home));
    expect(err.message).toContain('is not valid JSON');
    expect(err.message).not.toContain('s3cr3t');
  });

  it('when a key is misspelt or missing, then the message names the keys and not the values', async () => {
    await writeConfig('{"username":"u","pasword":"s3cr3t-value"}', 0o600);
    const err = await failure(loadConfigFile({}, home));
    expect(err.message).toMatch(/password/);
    expect(err.message).toMatch(/pasword/);
    expect(err.message).not.toContain('s3cr3t');
  });

  it('when a URL is not http(s), then the key is named', async () => {
    await writeConfig('{"username":"u","password":"p","restppUrl":"ftp://x"}', 0o600);
    expect((await failure(loadConfigFile({}, home))).message).toContain('restppUrl: must be an http(s) URL');
  });
});
