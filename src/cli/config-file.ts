import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ExitCode, CliError } from './cli-error.js';

const url = z.string().regex(/^https?:\/\/[^\s]+$/, 'must be an http(s) URL');

// Strict, so a misspelt key ("pasword") is reported instead of silently ignored.
const schema = z.strictObject({
  host: z.string().min(1).optional(),
  restppUrl: url.optional(),
  gsqlUrl: url.optional(),
  version: z
    .string()
    .regex(/^\d+\.\d+(\.\d+)?$/, 'must look like 3.9.3')
    .optional(),
  username: z.string().min(1),
  password: z.string().min(1),
});

export type TgbffConfig = z.infer<typeof schema>;

export interface LoadedConfig {
  path: string;
  config: TgbffConfig;
}

type Env = Readonly<Record<string, string | undefined>>;

export const configPath = (env: Env, homeDir: string): string =>
  env.TGBFF_CONFIG || join(homeDir, '.config', 'tgbff', 'config.json');

const setupError = (message: string): CliError => new CliError(ExitCode.usage, 'config_file', message);

/**
 * Why a config file may not be used, or undefined. It holds a password and names the server that password
 * goes to, so, as ssh does with its own files, a file another user could read, change or own is refused
 * outright (not used with a warning): a group-writable file lets that group point the password at their
 * own server. Root may own it (a file an administrator put in place).
 */
export function unsafeMode(stats: { mode: number; uid: number }, uid: number | undefined): string | undefined {
  const octal = (stats.mode & 0o777).toString(8);
  if ((stats.mode & 0o022) !== 0) return `other users can change it (mode ${octal})`;
  if ((stats.mode & 0o044) !== 0) return `other users can read it (mode ${octal})`;
  if (uid !== undefined && stats.uid !== uid && stats.uid !== 0) return `it belongs to another user (uid ${stats.uid})`;
  return undefined;
}

/**
 * Reads the config file if there is one, through one open file, so the file checked is the file read.
 */
export async function loadConfigFile(env: Env, homeDir: string): Promise<LoadedConfig | undefined> {
  const path = configPath(env, homeDir);
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !env.TGBFF_CONFIG) return undefined;
    throw setupError(`cannot read config file ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let text: string;
  try {
    const unsafe = unsafeMode(await file.stat(), process.getuid?.());
    if (unsafe !== undefined) {
      const fix = unsafe.startsWith('it belongs') ? `run: chown $(id -u) ${path}` : `run: chmod 600 ${path}`;
      throw setupError(`refusing config file ${path}: ${unsafe}; ${fix}`);
    }
    text = await file.readFile('utf8');
  } finally {
    await file.close();
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    // The parser's own message quotes file content, which may be the password.
    throw setupError(`config file ${path} is not valid JSON`);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`);
    throw setupError(`config file ${path} is invalid: ${problems.join('; ')}`);
  }
  return { path, config: parsed.data };
}
