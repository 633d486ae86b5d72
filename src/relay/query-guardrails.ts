import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../errors.js';
import type { RelayTarget } from './path-guard.js';

/**
 * TigerGraph sizes a query by request headers (docs.tigergraph.com, API "Size and time limits", and
 * "Memory management", by HTTP header): `GSQL-TIMEOUT`, in milliseconds (RESTPP's own default is
 * RESTPP.Factory.DefaultQueryTimeout, 16 s), `RESPONSE-LIMIT`, in bytes (over it, TigerGraph answers
 * REST-4000 instead of the result), and, when the operator caps them, `GSQL-THREAD-LIMIT` (threads) and
 * `GSQL-QueryLocalMemLimitMB` (MB per machine, 4.x). A browser may ask for less than the caps; asking for
 * more gets the cap (the request still runs, only shorter, smaller or slower), and sending none gets the
 * default. A value that is not a whole positive number is 400.
 */
export interface QueryGuardrails {
  /** The most GSQL-TIMEOUT any relayed request carries (QUERY_TIMEOUT_MAX_MS). */
  readonly timeoutMaxMs: number;
  /** GSQL-TIMEOUT sent when the browser sends none (QUERY_TIMEOUT_DEFAULT_MS, at most the max). */
  readonly timeoutDefaultMs: number;
  /** The most RESPONSE-LIMIT any relayed request carries, and the default (RELAY_MAX_RESPONSE_BYTES). */
  readonly responseLimitMax: number;
  /**
   * GSQL-THREAD-LIMIT (threads a query may use) capped at QUERY_THREAD_LIMIT_MAX, QUERY_THREAD_LIMIT_DEFAULT
   * when the browser sends none. Absent: never forwarded (TigerGraph's own configuration applies).
   */
  readonly threads?: SizingCap;
  /** GSQL-QueryLocalMemLimitMB (a query's memory per machine, MB; TigerGraph 4.x), as `threads`. */
  readonly memoryMb?: SizingCap;
  /**
   * Per installed query (`graph/query`, as TigerGraph reads them: decoded), from QUOTA_POLICY_FILE `queries:`:
   * caps that replace `threads` / `memoryMb` for that query (one it leaves unset keeps the setting's).
   */
  readonly perQuery?: ReadonlyMap<string, QuerySizing>;
}

export interface QuerySizing {
  readonly threads?: SizingCap;
  readonly memoryMb?: SizingCap;
}

/** `graph/query` of an installed-query path (`/query/<graph>/<query>`, decoded), else null. */
export function installedQueryKey(path: string): string | null {
  if (!path.startsWith('/query/')) return null;
  const rest = path.slice('/query/'.length);
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1 || rest.indexOf('/', slash + 1) >= 0) return null;
  return rest;
}

export interface SizingCap {
  readonly max: number;
  readonly default: number;
}

/** The values one relayed request carries upstream, as header text. */
export interface QueryLimits {
  readonly timeout: string;
  readonly responseLimit: string;
  readonly threads: string | undefined;
  readonly memoryMb: string | undefined;
}

/** The sizing headers the relay sets itself, by their lower-case names: whatever the browser sent is replaced. */
export const THREAD_LIMIT = 'gsql-thread-limit';
export const MEMORY_LIMIT = 'gsql-querylocalmemlimitmb';
const SET_BY_RELAY = new Set(['gsql-timeout', 'response-limit', THREAD_LIMIT, MEMORY_LIMIT]);

const WHOLE = /^[0-9]{1,15}$/;

function capped(raw: string | string[] | undefined, name: string, unit: string, fallback: number, max: number) {
  if (raw === undefined) return Math.min(fallback, max);
  // Node joins repeated headers with ", ", so two values fail here too.
  const text = typeof raw === 'string' ? raw.trim() : '';
  const n = WHOLE.test(text) ? Number(text) : 0;
  if (n < 1) throw new AppError('invalid_request', `${name}: must be a whole number of ${unit}, at least 1`);
  return Math.min(n, max);
}

/**
 * The capped sizing headers of one request to `path` (decoded, after the mount), or 400 invalid_request naming
 * the header. An installed query named in the policy file's `queries:` gets its own thread and memory caps.
 */
export function queryLimits(headers: IncomingHttpHeaders, g: QueryGuardrails, path = ''): QueryLimits {
  let threads = g.threads;
  let memoryMb = g.memoryMb;
  if (g.perQuery !== undefined) {
    const key = installedQueryKey(path);
    const own = key === null ? undefined : g.perQuery.get(key);
    if (own !== undefined) {
      threads = own.threads ?? threads;
      memoryMb = own.memoryMb ?? memoryMb;
    }
  }
  return {
    timeout: String(
      capped(headers['gsql-timeout'], 'GSQL-TIMEOUT', 'milliseconds', g.timeoutDefaultMs, g.timeoutMaxMs),
    ),
    responseLimit: String(
      capped(headers['response-limit'], 'RESPONSE-LIMIT', 'bytes', g.responseLimitMax, g.responseLimitMax),
    ),
    threads:
      threads === undefined
        ? undefined
        : String(capped(headers[THREAD_LIMIT], 'GSQL-THREAD-LIMIT', 'threads', threads.default, threads.max)),
    memoryMb:
      memoryMb === undefined
        ? undefined
        : String(
            capped(headers[MEMORY_LIMIT], 'GSQL-QueryLocalMemLimitMB', 'megabytes', memoryMb.default, memoryMb.max),
          ),
  };
}

/** Replaces whatever the browser sent of the sizing headers in a flat [name, value, …] list by the capped values. */
export function withQueryLimits(flat: string[], limits: QueryLimits): string[] {
  const out: string[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const name = flat[i]!;
    if (SET_BY_RELAY.has(name)) continue;
    out.push(name, flat[i + 1]!);
  }
  out.push('gsql-timeout', limits.timeout, 'response-limit', limits.responseLimit);
  if (limits.threads !== undefined) out.push(THREAD_LIMIT, limits.threads);
  if (limits.memoryMb !== undefined) out.push(MEMORY_LIMIT, limits.memoryMb);
  return out;
}

/**
 * RESTPP's built-in vertex, edge and loading-job endpoints also read a `timeout` query parameter, in seconds
 * (0 or absent: the server's own timeout), besides the GSQL-TIMEOUT header (docs/tigergraph-wire.md §7).
 * Installed queries do not: there `timeout` is the query's own parameter, passed as sent. Neither
 * GSQL-TIMEOUT nor RESPONSE-LIMIT is read from the query string, so only `timeout` is capped.
 */
const TIMEOUT_PARAM_PATHS = ['/graph/', '/ddl/'];

/** QUERY_TIMEOUT_MAX_MS in the parameter's whole seconds: rounded down, and at least 1 (0 means no cap there). */
export const timeoutParamCapSec = (g: QueryGuardrails): number => Math.max(1, Math.floor(g.timeoutMaxMs / 1000));

function decodeParam(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/**
 * The upstream target with each `timeout` parameter of a built-in endpoint at most QUERY_TIMEOUT_MAX_MS in
 * seconds; every spelling TigerGraph could read as `timeout` (escapes, case) counts. A value that is not a
 * whole number is 400 invalid_request naming it. The rest of the target is passed byte for byte.
 */
export function withTimeoutParamCapped(found: RelayTarget, g: QueryGuardrails): string {
  const { path, target } = found;
  const mark = target.indexOf('?');
  if (mark < 0 || !TIMEOUT_PARAM_PATHS.some((p) => path.startsWith(p))) return target;
  const cap = timeoutParamCapSec(g);
  let changed = false;
  const parts = target
    .slice(mark + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const name = decodeParam(eq < 0 ? part : part.slice(0, eq));
      if (name === undefined || name.trim().toLowerCase() !== 'timeout') return part;
      const text = (eq < 0 ? '' : (decodeParam(part.slice(eq + 1)) ?? '')).trim();
      if (!WHOLE.test(text)) throw new AppError('invalid_request', 'timeout: must be a whole number of seconds');
      if (Number(text) <= cap) return part;
      changed = true;
      return `${part.slice(0, eq)}=${cap}`;
    });
  return changed ? `${target.slice(0, mark + 1)}${parts.join('&')}` : target;
}
