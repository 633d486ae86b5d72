import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AdminCredentials } from '@tigergraph-bff/client';
import { CliError, ExitCode } from './cli-error.js';
import type { LoadedConfig, TgbffConfig } from './config-file.js';
import { findNetrcEntry, parseNetrc } from './netrc.js';
import type { Prompter } from './prompt.js';
import { bareHost, DEFAULT_HOST } from './settings.js';

export interface ResolvedCredentials {
  creds: AdminCredentials;
  /** Where they came from, for messages: "--user and TG_PASSWORD", "netrc file /x/.netrc", … */
  source: string;
  /** Stored credentials passed over on the way, and why (for --verbose). */
  skipped: string[];
}

export interface CredentialInputs {
  /** --user */
  user?: string;
  env: Readonly<Record<string, string | undefined>>;
  homeDir: string;
  /** The admin server's URL: stored credentials are sent only to the server they were stored for. */
  server: string;
  /** Host name of the admin server, matched against netrc `machine`. */
  host: string;
  /** --netrc-default or TGBFF_NETRC_DEFAULT=1: netrc's `default` entry may serve any host. */
  netrcDefault?: boolean;
  config: LoadedConfig | undefined;
  /** undefined when standard input is not a terminal. */
  prompter: Prompter | undefined;
}

const setupError = (code: string, message: string): CliError => new CliError(ExitCode.usage, code, message);

async function fromNetrc(
  inputs: CredentialInputs,
  skipped: string[],
): Promise<Omit<ResolvedCredentials, 'skipped'> | undefined> {
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
  const entries = parseNetrc(text);
  const entry = findNetrcEntry(entries, inputs.host, inputs.user, { useDefault: inputs.netrcDefault === true });
  if (!entry && !inputs.netrcDefault && findNetrcEntry(entries, inputs.host, inputs.user, { useDefault: true })) {
    skipped.push(`the default entry of netrc file ${path} (it serves any host only with --netrc-default)`);
  }
  const username = inputs.user ?? entry?.login;
  if (!entry?.password || !username) return undefined;
  const which = entry.machine === undefined ? 'default entry' : `machine ${entry.machine}`;
  return { creds: { username, password: entry.password }, source: `netrc file ${path} (${which})` };
}

/**
 * The admin server a config file's credentials belong to: its `gsqlUrl` (scheme, host and port must
 * match), else its `host` (any port), else the CLI's default host. A URL from a flag or the environment
 * may point the CLI elsewhere; the stored password does not follow it there.
 */
export function configServer(config: TgbffConfig): { fits(server: string): boolean; name: string } {
  if (config.gsqlUrl !== undefined) {
    const origin = new URL(config.gsqlUrl).origin;
    return { name: origin, fits: (server) => new URL(server).origin === origin };
  }
  const host = (config.host ?? DEFAULT_HOST).replace(/^\[|\]$/g, '').toLowerCase();
  return { name: host, fits: (server) => bareHost(new URL(server)).toLowerCase() === host };
}

function fromConfig(inputs: CredentialInputs, skipped: string[]): Omit<ResolvedCredentials, 'skipped'> | undefined {
  const loaded = inputs.config;
  if (!loaded) return undefined;
  if (inputs.user !== undefined && inputs.user !== loaded.config.username) return undefined;
  const stored = configServer(loaded.config);
  if (!stored.fits(inputs.server)) {
    skipped.push(
      `config file ${loaded.path} (its credentials are for ${stored.name}, not ${new URL(inputs.server).origin})`,
    );
    return undefined;
  }
  const { username, password } = loaded.config;
  return { creds: { username, password }, source: `config file ${loaded.path}` };
}

async function fromPrompt(inputs: CredentialInputs): Promise<Omit<ResolvedCredentials, 'skipped'> | undefined> {
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
 * --user + TG_PASSWORD, netrc (by host), the config file (for its own server), then a no-echo prompt
 * on a terminal.
 */
export async function resolveCredentials(inputs: CredentialInputs): Promise<ResolvedCredentials> {
  const password = inputs.env.TG_PASSWORD;
  if (inputs.user !== undefined && password) {
    return { creds: { username: inputs.user, password }, source: '--user and TG_PASSWORD', skipped: [] };
  }
  const skipped: string[] = [];
  const found = (await fromNetrc(inputs, skipped)) ?? fromConfig(inputs, skipped) ?? (await fromPrompt(inputs));
  if (found) return { ...found, skipped };

  const ways = [
    '--user NAME with TG_PASSWORD',
    `a netrc entry for machine ${inputs.host}`,
    `a config file (mode 600) for ${inputs.host}`,
    'a terminal, to be asked',
  ];
  // The half-given way first, as its own sentence: it is almost always the one the user meant.
  const half = password && inputs.user === undefined ? 'TG_PASSWORD is set, but it needs --user NAME. ' : '';
  const passed = skipped.length > 0 ? `; not used for ${new URL(inputs.server).origin}: ${skipped.join('; ')}` : '';
  throw setupError(
    'no_credentials',
    `no admin credentials found. ${half}Give them one of these ways: ${ways.join(', ')}${passed}`,
  );
}
