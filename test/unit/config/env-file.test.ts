import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkEnvFile, EnvFileError, loadEnvFileIfPresent } from '../../../src/config/env-file.js';

const check = (text: string) => () => checkEnvFile(text, '/x/.env');

describe('.env checking', () => {
  it('when a file holds assignments, comments, export and quoted multi-line values, then it is accepted', () => {
    expect(check('# c\n\nA=1\nexport B = two\nC="multi\nline"\nD=\'x\'\nE=`y`\nF=\nG=a # tail\n')).not.toThrow();
  });

  it('when .env.example is copied to .env as is, then it is accepted', () => {
    expect(check(readFileSync(new URL('../../../.env.example', import.meta.url), 'utf8'))).not.toThrow();
  });

  it('when a line has no "=", then the error names the file and line and not the content', () => {
    expect(check('A=1\nhunter2-password-line\nB=2')).toThrow(
      new EnvFileError('/x/.env', 'expected KEY=value (KEY: letters, digits and _, not starting with a digit)', 2),
    );
    expect(check('A=1\nhunter2-password-line\nB=2')).toThrow(/^\/x\/\.env, line 2: (?!.*hunter2)/);
  });

  it('when a key is not a variable name, then it is refused', () => {
    expect(check('1A=x')).toThrow('/x/.env, line 1');
    expect(check('A-B=x')).toThrow('/x/.env, line 1');
  });

  it('when the file starts with a byte-order mark, which Node would keep in the first key, then it is refused', () => {
    expect(check('\uFEFFPORT=1\n')).toThrow('/x/.env, line 1: starts with a byte-order mark');
  });

  it('when a quote is never closed, then the line that opened it is named', () => {
    expect(check('A=1\nB="open\nC=3\n')).toThrow('/x/.env, line 2: the value opens a " quote that is never closed');
  });
});

describe('loadEnvFileIfPresent', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tgbff-envfile-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('when there is no file, then nothing is loaded and no error is raised', () => {
    const loaded: string[] = [];
    expect(loadEnvFileIfPresent(path.join(dir, '.env'), (f) => loaded.push(f))).toBe(false);
    expect(loaded).toEqual([]);
  });

  it('when the file is well formed, then it is handed to the loader', async () => {
    const file = path.join(dir, '.env');
    await writeFile(file, 'A=1\n');
    const loaded: string[] = [];
    expect(loadEnvFileIfPresent(file, (f) => loaded.push(f))).toBe(true);
    expect(loaded).toEqual([file]);
  });

  it('when the file is malformed, then the loader is never called', async () => {
    const file = path.join(dir, '.env');
    await writeFile(file, 'oops\n');
    const loaded: string[] = [];
    expect(() => loadEnvFileIfPresent(file, (f) => loaded.push(f))).toThrow(`${file}, line 1`);
    expect(loaded).toEqual([]);
  });
});
