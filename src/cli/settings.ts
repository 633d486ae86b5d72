import { positiveInt, type OptionValues } from './args.js';
import { usageError } from './cli-error.js';
import type { TgbffConfig } from './config-file.js';
import { capabilitiesOf, isName } from '@tigergraph-bff/client';

export interface ConnectionSettings {
  gsqlUrl: string;
  restppUrl: string;
  version: string;
  graph: string;
  timeoutMs: number;
  /** Host name of the admin server, the key for netrc look-ups. */
  host: string;
  /** Where each URL came from, for --verbose: "--gsql-url", "TG_GSQL_URL", "config file", "default". */
  from: { gsqlUrl: string; restppUrl: string };
}

type Env = Readonly<Record<string, string | undefined>>;

/** The CLI's own default admin host; a config file that names no host names this one. */
export const DEFAULT_HOST = '127.0.0.1';
const DEFAULT_VERSION = '3.9.3';

function checkedUrl(raw: string, name: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw usageError(`${name} is not a URL: '${raw}'`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw usageError(`${name} must be http(s): '${raw}'`);
  return parsed;
}

const str = (v: string | boolean | undefined): string | undefined => (typeof v === 'string' ? v : undefined);
const trimSlash = (u: string): string => u.replace(/\/+$/, '');

/** netrc and config files name IPv6 hosts without brackets; URL keeps them. */
export const bareHost = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');

/** The first value set, and a name for where it came from. */
function pick(candidates: ReadonlyArray<readonly [string | undefined, string]>): { value: string; from: string } {
  for (const [value, from] of candidates) if (value !== undefined) return { value, from };
  throw new Error('no candidate'); // the last candidate is always a default
}

/** Flags win over env, env over the config file, the config file over defaults. */
export function resolveSettings(values: OptionValues, env: Env, config: TgbffConfig | undefined): ConnectionSettings {
  const { value: version, from: versionFrom } = pick([
    [str(values.version), '--version'],
    [env.TG_VERSION, 'TG_VERSION'],
    [config?.version, 'the config file\'s "version"'],
    [DEFAULT_VERSION, 'default'],
  ]);
  if (!/^\d+\.\d+(\.\d+)?$/.test(version))
    throw usageError(`${versionFrom} must be a TigerGraph version like 3.9.3 or 4.1.0, got '${version}'`);

  // 4.1+ serves the data API under the admin port's /restpp prefix; port 9000 is gone.
  const { restppUnderAdmin } = capabilitiesOf(version);
  const host = config?.host ?? DEFAULT_HOST;
  const gsqlRaw = pick([
    [str(values['gsql-url']), '--gsql-url'],
    [env.TG_GSQL_URL, 'TG_GSQL_URL'],
    [config?.gsqlUrl, 'config file'],
    [`http://${host}:14240`, config?.host === undefined ? 'default' : 'config file host'],
  ]);
  const gsql = checkedUrl(
    gsqlRaw.value,
    gsqlRaw.from === '--gsql-url' || gsqlRaw.from === 'TG_GSQL_URL' ? gsqlRaw.from : 'gsqlUrl',
  );
  const restppDefault = restppUnderAdmin ? `${trimSlash(gsql.href)}/restpp` : `http://${host}:9000`;
  const restppRaw = pick([
    [str(values['restpp-url']), '--restpp-url'],
    [env.TG_RESTPP_URL, 'TG_RESTPP_URL'],
    [config?.restppUrl, 'config file'],
    [
      restppDefault,
      restppUnderAdmin ? 'admin server URL + /restpp' : config?.host === undefined ? 'default' : 'config file host',
    ],
  ]);
  checkedUrl(
    restppRaw.value,
    restppRaw.from === '--restpp-url' || restppRaw.from === 'TG_RESTPP_URL' ? restppRaw.from : 'restppUrl',
  );

  const timeoutFlag = str(values['timeout-ms']);
  const timeoutMs =
    positiveInt(timeoutFlag ?? env.TG_TIMEOUT_MS, timeoutFlag ? '--timeout-ms' : 'TG_TIMEOUT_MS') ?? 10_000;
  const { value: graph, from: graphFrom } = pick([
    [str(values.graph), '--graph'],
    [env.TG_GRAPH, 'TG_GRAPH'],
    ['social', 'default'],
  ]);
  if (!isName(graph)) throw usageError(`${graphFrom} must be a plain name, got '${graph}'`);

  return {
    gsqlUrl: trimSlash(gsqlRaw.value),
    restppUrl: trimSlash(restppRaw.value),
    version,
    graph,
    timeoutMs,
    host: bareHost(gsql),
    from: { gsqlUrl: gsqlRaw.from, restppUrl: restppRaw.from },
  };
}
