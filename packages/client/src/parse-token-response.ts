import { TigerGraphError } from './errors.js';
import { isObject, parseJsonLenient, type JsonObject } from './parse-json.js';
import { redact } from './redact.js';
import type { TokenGrant, WireEra } from './types.js';

/** The fields every RESTPP / GSQL JSON answer may carry, read tolerantly. */
export interface Envelope {
  /** True unless `error` is absent, false, or the string "false" (RESTPP emits both). */
  error: boolean;
  message: string;
  code: string | undefined;
  body: JsonObject | undefined;
}

export function readEnvelope(text: string): Envelope {
  const parsed = parseJsonLenient(text);
  const body = isObject(parsed) ? parsed : undefined;
  const flag = body?.['error'];
  const error = flag !== undefined && flag !== null && flag !== false && flag !== 'false';
  const message = typeof body?.['message'] === 'string' ? body['message'] : '';
  const code = typeof body?.['code'] === 'string' ? body['code'] : undefined;
  return { error, message, code, body };
}

/** The token sits at the top level (secret requests, 4.1+) or under `results` (3.x user/password). */
export function extractToken(body: JsonObject | undefined): string | undefined {
  const results = body?.['results'];
  const token = body?.['token'] ?? (isObject(results) ? results['token'] : undefined);
  return typeof token === 'string' && token.length > 0 ? token : undefined;
}

const RELATIVE_LIMIT = 1e9;
const JAVA_DATE = /^[A-Za-z]{3} ([A-Za-z]{3}) (\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (UTC|GMT) (\d{4})$/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * Reads `expiration` as epoch seconds. Numbers below 1e9 are relative seconds (the 3.2 refresh bug
 * answered the lifetime); strings may be numeric or a 4.x date such as "Wed Jul 10 06:12:47 UTC 2024".
 * Returns undefined when absent or unusable (e.g. -1 from DELETE, 0 from the 3.2 POST sample).
 */
export function parseExpiration(value: unknown, nowMs: number): number | undefined {
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
    return parseExpiration(Number(value), nowMs);
  }
  if (typeof value === 'number' && Number.isFinite(value)) {
    if (value <= 0) return undefined;
    return value < RELATIVE_LIMIT ? Math.floor(nowMs / 1000 + value) : Math.floor(value);
  }
  if (typeof value !== 'string') return undefined;
  const java = JAVA_DATE.exec(value.trim());
  if (java !== null) {
    const [, mon, day, hh, mm, ss, , year] = java;
    const month = MONTHS.indexOf(mon ?? '');
    if (month >= 0) return Date.UTC(Number(year), month, Number(day), Number(hh), Number(mm), Number(ss)) / 1000;
  }
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? undefined : Math.floor(parsed / 1000);
}

export type TokenOp = 'request' | 'refresh' | 'delete';

const VERB: Record<TokenOp, string> = { request: 'generate', refresh: 'refresh', delete: 'delete' };
// REST-1101 is attested (query-string credentials on 3.5+); REST-1104 is the simulator's inferred
// code for a malformed token request (missing graph, bad lifetime).
const BAD_REQUEST_CODES = new Set(['REST-1101', 'REST-1104']);
const INVALID_CREDENTIAL_CODES = new Set(['REST-10016', 'REST-10018', 'REST-10019']);

/**
 * Turns a failed token answer into a TigerGraphError. Failures arrive as HTTP 200 with
 * `"error": true` as often as with an error status, so both are read. `credentials` are masked in
 * any server text that is quoted.
 */
export function classifyTokenFailure(
  op: TokenOp,
  status: number,
  env: Envelope,
  credentials: ReadonlyArray<string | undefined>,
): TigerGraphError {
  const options = { code: env.code, status };
  const detail = redact(env.message, credentials).trim();
  const quoted = detail === '' ? `HTTP ${status}` : detail;
  if (env.code === 'REST-1000' || env.message.includes('Endpoint is not found from url = /requesttoken')) {
    return new TigerGraphError(
      'auth_disabled',
      `REST++ authentication is not enabled, can't ${VERB[op]} token.`,
      options,
    );
  }
  if (env.code === 'REST-3300') {
    return new TigerGraphError('token_not_found', `The token does not exist: ${quoted}`, options);
  }
  if ((env.code !== undefined && BAD_REQUEST_CODES.has(env.code)) || status === 400) {
    return new TigerGraphError('bad_request', `Token ${op} refused: ${quoted}`, options);
  }
  if (status === 401 || status === 403 || (env.code !== undefined && INVALID_CREDENTIAL_CODES.has(env.code))) {
    return new TigerGraphError('invalid_credentials', `Token ${op} denied: ${quoted}`, options);
  }
  if (env.body === undefined) {
    return new TigerGraphError(
      'protocol',
      `Unexpected answer to the token ${op} call (HTTP ${status}, not JSON)`,
      options,
    );
  }
  if (status >= 500 || status === 404) {
    return new TigerGraphError('protocol', `Token ${op} failed on the server: ${quoted}`, options);
  }
  // HTTP 200 + error:true with an undocumented code: a wrong secret or missing privilege in practice.
  return new TigerGraphError('invalid_credentials', `Token ${op} denied: ${quoted}`, options);
}

export interface GrantContext {
  nowMs: number;
  /** Lifetime asked for, or the era's server default when none was asked for. */
  lifetimeSec: number;
  credentials: ReadonlyArray<string | undefined>;
}

/** A successful request/refresh answer as a grant; any failure as a classified TigerGraphError. */
export function parseTokenAnswer(op: TokenOp, status: number, text: string, ctx: GrantContext): TokenGrant {
  const env = readEnvelope(text);
  if (env.error || status >= 300 || env.body === undefined)
    throw classifyTokenFailure(op, status, env, ctx.credentials);
  const token = extractToken(env.body);
  if (token === undefined) {
    throw new TigerGraphError('protocol', `The token ${op} answer carried no token`, { code: env.code, status });
  }
  // 3.6+ may leave the expiry out; the server then applied the lifetime we asked for from now.
  const expiresAt =
    parseExpiration(env.body['expiration'], ctx.nowMs) ?? Math.floor(ctx.nowMs / 1000) + ctx.lifetimeSec;
  return { token, expiresAt };
}

/** A delete answer: resolves on success, throws a classified TigerGraphError otherwise. */
export function checkDeleteAnswer(status: number, text: string, credentials: ReadonlyArray<string | undefined>): void {
  const env = readEnvelope(text);
  if (env.error || status >= 300 || env.body === undefined)
    throw classifyTokenFailure('delete', status, env, credentials);
}

/**
 * A refused token request that named a graph, re-read as 'graph_not_found' where TigerGraph says so:
 * 4.1+ `/gsql/v1/tokens` answers 400 for a graph name that is wrong (pyTigerGraph reads it so; a 404 there
 * means no such endpoint, a server older than 4.1, unless the message quotes the graph); a refusal whose message
 * quotes the graph, in any era. Other refusals stay as they were.
 */
export function asGraphRefusal(err: unknown, era: WireEra, graph: string): unknown {
  if (!(err instanceof TigerGraphError)) return err;
  if (err.kind !== 'bad_request' && err.kind !== 'invalid_credentials' && err.kind !== 'protocol') return err;
  const byStatus = era === 'jwt' && err.status === 400;
  const byMessage = err.message.includes(`'${graph}'`) || err.message.includes(`"${graph}"`);
  if (!byStatus && !byMessage) return err;
  return new TigerGraphError('graph_not_found', `Graph '${graph}' does not exist, or this secret is not for it.`, {
    code: err.code,
    status: err.status,
    cause: err,
  });
}
