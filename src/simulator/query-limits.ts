import { restppError } from './restpp-errors.js';
import type { Sim, SimRequest } from './sim-context.js';

/** RESTPP.Factory.DefaultQueryTimeout: a query without GSQL-TIMEOUT stops after 16 s (docs: API, "Size and time limits"). */
export const DEFAULT_QUERY_TIMEOUT_MS = 16_000;

const WHOLE = /^[0-9]{1,15}$/;

function headerNumber(r: SimRequest, name: string): number | undefined {
  const raw = r.req.headers[name];
  if (typeof raw !== 'string' || !WHOLE.test(raw.trim())) return undefined;
  const n = Number(raw.trim());
  return n > 0 ? n : undefined;
}

/** The query's time limit: GSQL-TIMEOUT in ms when the request sends one, else the server default. */
export function queryTimeout(r: SimRequest): { ms: number; fromHeader: boolean } {
  const ms = headerNumber(r, 'gsql-timeout');
  return ms === undefined ? { ms: DEFAULT_QUERY_TIMEOUT_MS, fromHeader: false } : { ms, fromHeader: true };
}

/**
 * The built-in vertex, edge and loading-job endpoints read a `timeout` query parameter, in whole seconds; 0,
 * absent or not a number leaves the server's own limit (TG docs, *Built-in endpoints*, each one's parameter
 * table; docs/tigergraph-wire.md §7). Installed queries read no such parameter: theirs are the query's own.
 */
export function timeoutParamMs(path: string, query: URLSearchParams): number | undefined {
  if (!path.startsWith('/graph/') && !path.startsWith('/ddl/')) return undefined;
  const raw = query.get('timeout');
  if (raw === null || !WHOLE.test(raw.trim())) return undefined;
  const seconds = Number(raw.trim());
  return seconds > 0 ? seconds * 1000 : undefined;
}

/**
 * The answer of a query that ran past its limit. Codes from TigerGraph's return-code table: REST-3000 for
 * a limit the request set (the GSQL-TIMEOUT header; a built-in's `timeout` parameter, code inferred),
 * REST-3002 for the system default; the REST-3002 text is the one TigerGraph gives (seen in public logs),
 * REST-3000's is modelled on it. The HTTP status is inferred (504: clients of TigerGraph handle this code
 * inside 5xx answers).
 */
export function sendQueryTimeout(
  sim: Sim,
  r: SimRequest,
  limit: { ms: number; fromHeader: boolean; fromParam?: boolean },
): void {
  const s = Math.round(limit.ms / 100) / 10;
  const hint = limit.fromParam
    ? 'Try a larger timeout parameter.'
    : limit.fromHeader
      ? 'Try a larger GSQL-TIMEOUT header value.'
      : 'Try increase RESTPP.Factory.DefaultQueryTimeoutSec or add header GSQL-TIMEOUT to override default system timeout. ';
  restppError(
    sim,
    r.res,
    504,
    limit.fromHeader || limit.fromParam ? 'REST-3000' : 'REST-3002',
    `The query didn't finish because it exceeded the query timeout threshold (${s} seconds). Please check GSE log for license expiration and RESTPP/GPE log with request id for details. ${hint}`,
  );
}

/** RESPONSE-LIMIT in bytes, when the request sends one. */
export function responseLimit(r: SimRequest): number | undefined {
  return headerNumber(r, 'response-limit');
}

const size = (bytes: number): string =>
  bytes >= 1_048_576
    ? `${Math.round(bytes / 1_048_576)}MB`
    : bytes >= 1024
      ? `${Math.round(bytes / 1024)}KB`
      : `${bytes}B`;

/** TigerGraph's answer instead of a result over RESPONSE-LIMIT (docs sample; units below 1 MB inferred). */
export function sendResponseTooLarge(sim: Sim, r: SimRequest, bytes: number, limit: number): void {
  restppError(
    sim,
    r.res,
    200,
    'REST-4000',
    `The query response size is ${size(bytes)}, which exceeds limit ${size(limit)}.`,
  );
}

/**
 * GSQL-QueryLocalMemLimitMB, when a 4.x request sends one: TigerGraph's "Memory management" page (4.x, "By HTTP
 * header") says it limits the query's memory on each machine for that request only, overriding
 * GPE.QueryLocalMemLimitMB, and a query over it is aborted. 3.x documents no such header: it is ignored there.
 * GSQL-THREAD-LIMIT is not modelled (the simulator runs no threads); both are recorded in seen().
 */
export function memoryLimitMb(sim: Sim, r: SimRequest): number | undefined {
  return sim.version.v4 ? headerNumber(r, 'gsql-querylocalmemlimitmb') : undefined;
}

/**
 * The answer of a query aborted for passing its memory limit. TigerGraph's docs say only that such a query
 * "is aborted automatically"; the status, code and text here are inferred (modelled on its other query errors).
 */
export function sendMemoryAborted(sim: Sim, r: SimRequest, neededMb: number, limitMb: number): void {
  restppError(
    sim,
    r.res,
    500,
    'GPE-MEMORY',
    `The query is aborted because its memory usage on a machine (${neededMb} MB) exceeds the query memory limit (${limitMb} MB). Try a larger GSQL-QueryLocalMemLimitMB header value.`,
  );
}
