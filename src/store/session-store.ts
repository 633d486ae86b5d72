import { ShortCache } from '../cache/short-cache.js';
import type { StoreCall } from './store-call.js';

/**
 * The session store seam: a stored session is one JSON record per session id, in the shape
 * express-session and connect-redis 8 wrote (a `cookie` plus the application's fields), so records
 * written by 0.1.x read here and records written here read there.
 */

/** The `cookie` of a stored record. Only `expires` matters to a store: it decides the record's TTL. */
export interface StoredCookie {
  originalMaxAge?: number | null;
  expires?: string | Date | null;
  secure?: boolean;
  httpOnly?: boolean;
  path?: string;
  domain?: string;
  sameSite?: boolean | 'lax' | 'strict' | 'none';
}

export interface SessionRecord {
  cookie?: StoredCookie;
  [field: string]: unknown;
}

/** How a read may be answered, and its caller's signal (store-call.ts). */
export interface SessionReadOptions extends StoreCall {
  /**
   * Read Redis, not this instance's session cache (store/redis/session-cache.ts), so an end written on another
   * instance is seen however late its invalidation arrives here. Every request but a relayed one reads so
   * (docs/architecture.md, "Which reads the cache answers"); stores without a cache ignore it.
   */
  bypassCache?: boolean;
}

/** Sessions by id; every call may reject with a 503 `store_unavailable` AppError. */
export interface SessionStore {
  /** The record, or null when there is none (never written, expired, destroyed, or logged out). */
  get(sid: string, options?: SessionReadOptions): Promise<SessionRecord | null>;
  /** Writes the record with its TTL (`sessionTtlSeconds`); a TTL already passed deletes it instead. */
  set(sid: string, record: SessionRecord): Promise<void>;
  /** Slides an existing record's TTL back to full; a missing one stays missing. */
  touch(sid: string, record: SessionRecord): Promise<void>;
  destroy(sid: string): Promise<void>;
}

/**
 * connect-redis 8's TTL rule, kept so both versions agree: whole seconds to the cookie's expiry
 * (rounded up), else the fallback, which the service sets to the idle timeout (its cookies have none).
 */
export function sessionTtlSeconds(record: SessionRecord, fallbackSeconds: number, now = Date.now()): number {
  const expires = record.cookie?.expires;
  return expires ? Math.ceil((new Date(expires).getTime() - now) / 1000) : fallbackSeconds;
}

/** A record as stored; one that does not parse to an object is treated as no session (a 401, not a 500). */
export function parseSessionRecord(raw: string | null): SessionRecord | null {
  if (raw === null) return null;
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as SessionRecord) : null;
  } catch {
    return null;
  }
}

/** How long a parsed record is kept against the exact text it was parsed from. */
const PARSED_MS = 10_000;

/** A record's text to its record, per session id (a store's `get`). */
export type RecordReader = (sid: string, raw: string | null) => SessionRecord | null;

/**
 * `parseSessionRecord` with the last record of each session kept (a JSON.parse per request was the
 * service's largest own item in the relay's CPU profile). An answer is reused only for the very same
 * text, so any write, anywhere, is a new parse; the record is deep-frozen, so no caller can change what
 * the next request reads (a store hands out records callers cannot mutate, as with Redis).
 */
export function recordReader(maxEntries = 10_000): RecordReader {
  const parsed = new ShortCache<{ raw: string; record: SessionRecord }>(PARSED_MS, maxEntries);
  return (sid, raw) => {
    if (raw === null) return null;
    const known = parsed.get(sid);
    if (known !== undefined && known.raw === raw) return known.record;
    const record = parseSessionRecord(raw);
    if (record === null) parsed.delete(sid);
    else parsed.set(sid, { raw, record: deepFreeze(record) });
    return record;
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
