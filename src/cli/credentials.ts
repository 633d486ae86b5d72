import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AdminCredentials } from '../tigergraph/types.js';
import { CliError, ExitCode } from './cli-error.js';
import type { LoadedConfig } from './config-file.js';
import { findNetrcEntry, parseNetrc } from './netrc.js';
import type { Prompter } from './prompt.js';

export interface ResolvedCredentials {
  creds: AdminCredentials;
  /** Where they came from, for messages: "--user and TG_PASSWORD", "netrc file /x/.netrc", … */
  source: string;
}

export interface CredentialInputs {
  /** --user */
  user?: string;
  env: Readonly<Record<string, string | undefined>>;
  homeDir: string;
  /** Host name of the admin server, matched against netrc `machine`. */
  host: string;
  config: LoadedConfig | undefined;
  /** undefined when standard input is not a terminal. */
  prompter: Prompter | undefined;
}

const setupError = (code: string, message: string): CliError => new CliError(ExitCode.usage, code, message);

async function fromNetrc(inputs: CredentialInputs): Promise<ResolvedCredentials | undefined> {
  const path = inputs.env.NETRC || join(inputs.homeDir, '.netrc');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    // ~/.netrc is optional; a NETRC that points nowhere is a mistake worth reporting.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !inputs.env.NETRC) return undefined;
    throw setupError(
      'netrc_file',
      `cannot read netrc file ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const entry = findNetrcEntry(parseNetrc(text), inputs.host, inputs.user);
  const username = inputs.user ?? entry?.login;
  if (!entry?.password || !username) return undefined;
  const which = entry.machine === undefined ? 'default entry' : `machine ${entry.machine}`;
  return { creds: { username, password: entry.password }, source: `netrc file ${path} (${which})` };
}

function fromConfig(inputs: CredentialInputs): ResolvedCredentials | undefined {
  const loaded = inputs.config;
  if (!loaded) return undefined;
  if (inputs.user !== undefined && inputs.user !== loaded.config.username) return undefined;
  const { username, password } = loaded.config;
  return { creds: { username, password }, source: `config file ${loaded.path}` };
}

async function fromPrompt(inputs: CredentialInputs): Promise<ResolvedCredentials | undefined> {
  const prompter = inputs.prompter;
  if (!prompter) return undefined;
  const username = inputs.user ?? (await prompter.ask(`Admin user for ${inputs.host}: `)).trim();
  if (!username) throw setupError('no_credentials', 'no user name entered');
  const password = await prompter.askHidden(`Password for ${username}@${inputs.host}: `);
  if (!password) throw setupError('no_credentials', 'no password entered');
  return { creds: { username, password }, source: 'the prompt' };
}

/**
 * Admin credentials in the documented order, none from the command line except the user name:
 * --user + TG_PASSWORD, netrc (by host), the config file, then a no-echo prompt on a terminal.
 */
export async function resolveCredentials(inputs: CredentialInputs): Promise<ResolvedCredentials> {
  const password = inputs.env.TG_PASSWORD;
  if (inputs.user !== undefined && password) {
    return { creds: { username: inputs.user, password }, source: '--user and TG_PASSWORD' };
  }
  const found = (await fromNetrc(inputs)) ?? fromConfig(inputs) ?? (await fromPrompt(inputs));
  if (found) return found;

  const hints = [
    password && inputs.user === undefined ? 'TG_PASSWORD is set but needs --user' : '--user NAME with TG_PASSWORD',
    `a netrc entry for machine ${inputs.host}`,
    'a config file (mode 600)',
    'or run in a terminal to be asked',
  ];
  throw setupError('no_credentials', `no admin credentials found; use ${hints.join(', ')}`);
}
