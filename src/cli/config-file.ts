import { readFile, stat } from 'node:fs/promises';
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
 * Reads the config file if there is one. It holds a password, so a file other users can read is
 * refused outright (like ssh with a private key) rather than used with a warning.
 */
export async function loadConfigFile(env: Env, homeDir: string): Promise<LoadedConfig | undefined> {
  const path = configPath(env, homeDir);
  let mode: number;
  try {
    mode = (await stat(path)).mode;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !env.TGBFF_CONFIG) return undefined;
    throw setupError(`cannot read config file ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if ((mode & 0o044) !== 0) {
    const octal = (mode & 0o777).toString(8);
    throw setupError(`refusing config file ${path}: other users can read it (mode ${octal}); run: chmod 600 ${path}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(await readFile(path, 'utf8'));
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
