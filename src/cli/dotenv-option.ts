import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { checkEnvFile, EnvFileError } from '../config/env-file.js';
import { usageError } from './cli-error.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * `--dotenv FILE`: the variables of a .env file the user named, under the real environment (a variable
 * already set wins, as with the service's .env). The CLI never reads a .env on its own: one left in the
 * working directory could point TG_GSQL_URL at another server and collect the admin password sent there.
 * Not called --env-file: Node 20 reads an `--env-file` argument itself even after the script name.
 */
export function withEnvFile(env: Env, file: string | undefined): { env: Env; read?: string } {
  if (file === undefined) return { env };
  const path = resolve(file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw usageError(`--dotenv ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    checkEnvFile(text, path);
  } catch (err) {
    if (err instanceof EnvFileError) throw usageError(err.message);
    throw err;
  }
  const merged: Record<string, string | undefined> = { ...parseEnv(text) };
  for (const [key, value] of Object.entries(env)) if (value !== undefined) merged[key] = value;
  return { env: merged, read: path };
}
