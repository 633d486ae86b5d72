import type { Dispatcher } from 'undici';
import { capabilitiesOf } from './capabilities.js';
import type { QueryParams } from './data-client.js';
import type { TokenGrant } from './types.js';

export interface ConnectionOptions {
  restppUrl?: string;
  gsqlUrl?: string;
  /** Default http://127.0.0.1; used with the ports when the URLs are not given. */
  host?: string;
  restppPort?: number;
  gsPort?: number;
  version: string;
  graphname?: string;
  username?: string;
  password?: string;
  apiToken?: string;
  dispatcher?: Dispatcher;
  timeoutMs?: number;
  now?: () => number;
  /** Where the showSecrets deprecation notice goes; default process.emitWarning. */
  warn?: (message: string) => void;
}

/** (token, expiry in epoch seconds, expiry as ISO 8601 with an explicit zone). */
export type TokenTriple = readonly [token: string, expiresAt: number, expiresIso: string];

/** Version spellings before 3.6, whose `getToken(secret)` answers a TokenTriple. */
export type TripleVersion =
  | `${0 | 1 | 2}.${number}`
  | `${0 | 1 | 2}.${number}.${number}`
  | `3.${0 | 1 | 2 | 3 | 4 | 5}`
  | `3.${0 | 1 | 2 | 3 | 4 | 5}.${number}`;

/** Version spellings of 3.6 and later (tried after TripleVersion), whose `getToken(secret)` answers the token. */
export type TokenVersion = `${number}.${number}` | `${number}.${number}.${number}`;

export interface VertexQuery {
  select?: string;
  filter?: string;
  limit?: number;
  sort?: string;
}

/** Where the two servers are when only a host and ports (or nothing) were given. */
export function resolveUrls(opts: ConnectionOptions): { restppUrl: string; gsqlUrl: string } {
  const host = withScheme(opts.host ?? 'http://127.0.0.1');
  const gsPort = opts.gsPort ?? 14240;
  // 4.1+ no longer exposes port 9000: the data server sits behind the admin port under /restpp.
  const restppUrl =
    opts.restppUrl ??
    (capabilitiesOf(opts.version).restppUnderAdmin ? `${host}:${gsPort}/restpp` : `${host}:${opts.restppPort ?? 9000}`);
  return { restppUrl, gsqlUrl: opts.gsqlUrl ?? `${host}:${gsPort}` };
}

/** (token, epoch seconds, ISO 8601 in UTC with its "Z"): the seed's triple. */
export function triple(grant: TokenGrant): TokenTriple {
  return [grant.token, grant.expiresAt, new Date(grant.expiresAt * 1000).toISOString()] as const;
}

export function results(body: Record<string, unknown>): unknown[] {
  const value = body['results'];
  return Array.isArray(value) ? value : value === undefined ? [] : [value];
}

export function compact(query: Record<string, string | number | undefined>): QueryParams {
  return Object.fromEntries(Object.entries(query).filter((e): e is [string, string | number] => e[1] !== undefined));
}

function withScheme(host: string): string {
  const trimmed = host.replace(/\/+$/, '');
  return /^https?:\/\//.test(trimmed) ? trimmed : `http://${trimmed}`;
}
