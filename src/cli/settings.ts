import { positiveInt, type OptionValues } from './args.js';
import { usageError } from './cli-error.js';
import type { TgbffConfig } from './config-file.js';
import { isName } from '../tigergraph/names.js';

export interface ConnectionSettings {
  gsqlUrl: string;
  restppUrl: string;
  version: string;
  graph: string;
  timeoutMs: number;
  /** Host name of the admin server, the key for netrc look-ups. */
  host: string;
}

type Env = Readonly<Record<string, string | undefined>>;

const DEFAULT_HOST = '127.0.0.1';
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

/** 4.1+ serves the data API under the admin port's /restpp prefix; port 9000 is gone. */
function isRestppUnderGsql(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 4 || (major === 4 && minor >= 1);
}

/** Flags win over env, env over the config file, the config file over defaults. */
export function resolveSettings(values: OptionValues, env: Env, config: TgbffConfig | undefined): ConnectionSettings {
  const version = str(values.version) ?? env.TG_VERSION ?? config?.version ?? DEFAULT_VERSION;
  if (!/^\d+\.\d+(\.\d+)?$/.test(version)) throw usageError(`version must look like 3.9.3, got '${version}'`);

  const host = config?.host ?? DEFAULT_HOST;
  const gsqlRaw = str(values['gsql-url']) ?? env.TG_GSQL_URL ?? config?.gsqlUrl ?? `http://${host}:14240`;
  const gsql = checkedUrl(
    gsqlRaw,
    str(values['gsql-url']) ? '--gsql-url' : env.TG_GSQL_URL ? 'TG_GSQL_URL' : 'gsqlUrl',
  );
  const restppDefault = isRestppUnderGsql(version) ? `${trimSlash(gsql.href)}/restpp` : `http://${host}:9000`;
  const restppRaw = str(values['restpp-url']) ?? env.TG_RESTPP_URL ?? config?.restppUrl ?? restppDefault;
  checkedUrl(restppRaw, str(values['restpp-url']) ? '--restpp-url' : env.TG_RESTPP_URL ? 'TG_RESTPP_URL' : 'restppUrl');

  const timeoutFlag = str(values['timeout-ms']);
  const timeoutMs =
    positiveInt(timeoutFlag ?? env.TG_TIMEOUT_MS, timeoutFlag ? '--timeout-ms' : 'TG_TIMEOUT_MS') ?? 10_000;
  const graph = str(values.graph) ?? env.TG_GRAPH ?? 'social';
  if (!isName(graph)) throw usageError(`graph must be a plain name, got '${graph}'`);

  const hostname = gsql.hostname.replace(/^\[|\]$/g, ''); // netrc names IPv6 hosts without brackets
  return { gsqlUrl: trimSlash(gsqlRaw), restppUrl: trimSlash(restppRaw), version, graph, timeoutMs, host: hostname };
}
