import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../errors.js';

/**
 * TigerGraph sizes a query by two request headers (docs.tigergraph.com, API "Size and time limits"):
 * `GSQL-TIMEOUT`, in milliseconds (RESTPP's own default is RESTPP.Factory.DefaultQueryTimeout, 16 s), and
 * `RESPONSE-LIMIT`, in bytes (over it, TigerGraph answers REST-4000 instead of the result). A browser may
 * ask for less than the caps; asking for more gets the cap (the request still runs, only shorter or
 * smaller), and sending none gets the default. A value that is not a whole positive number is 400.
 */
export interface QueryGuardrails {
  /** The most GSQL-TIMEOUT any relayed request carries (QUERY_TIMEOUT_MAX_MS). */
  readonly timeoutMaxMs: number;
  /** GSQL-TIMEOUT sent when the browser sends none (QUERY_TIMEOUT_DEFAULT_MS, at most the max). */
  readonly timeoutDefaultMs: number;
  /** The most RESPONSE-LIMIT any relayed request carries, and the default (RELAY_MAX_RESPONSE_BYTES). */
  readonly responseLimitMax: number;
}

/** The values one relayed request carries upstream, as header text. */
export interface QueryLimits {
  readonly timeout: string;
  readonly responseLimit: string;
}

const WHOLE = /^[0-9]{1,15}$/;

function capped(raw: string | string[] | undefined, name: string, unit: string, fallback: number, max: number) {
  if (raw === undefined) return Math.min(fallback, max);
  // Node joins repeated headers with ", ", so two values fail here too.
  const text = typeof raw === 'string' ? raw.trim() : '';
  const n = WHOLE.test(text) ? Number(text) : 0;
  if (n < 1) throw new AppError('invalid_request', `${name}: must be a whole number of ${unit}, at least 1`);
  return Math.min(n, max);
}

/** The capped GSQL-TIMEOUT and RESPONSE-LIMIT of one request, or 400 invalid_request naming the header. */
export function queryLimits(headers: IncomingHttpHeaders, g: QueryGuardrails): QueryLimits {
  return {
    timeout: String(
      capped(headers['gsql-timeout'], 'GSQL-TIMEOUT', 'milliseconds', g.timeoutDefaultMs, g.timeoutMaxMs),
    ),
    responseLimit: String(
      capped(headers['response-limit'], 'RESPONSE-LIMIT', 'bytes', g.responseLimitMax, g.responseLimitMax),
    ),
  };
}

/** Replaces whatever the browser sent of the two headers in a flat [name, value, …] list by the capped values. */
export function withQueryLimits(flat: string[], limits: QueryLimits): string[] {
  const out: string[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const name = flat[i]!;
    if (name === 'gsql-timeout' || name === 'response-limit') continue;
    out.push(name, flat[i + 1]!);
  }
  out.push('gsql-timeout', limits.timeout, 'response-limit', limits.responseLimit);
  return out;
}
