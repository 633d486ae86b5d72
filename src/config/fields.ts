import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * Building blocks for the env schema. A parser throws `Invalid` with a message that completes
 * "KEY: …"; messages never contain the value, because the value may be a secret.
 */
export class Invalid extends Error {}

/** One problem with one key; rendered as `KEY: message`. */
export interface KeyIssue {
  key: string;
  message: string;
}

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const envString = z.preprocess(blankToUndefined, z.string().optional());

/**
 * An optional key: unset or blank gives undefined (a blank line in .env means "not set"). The value is trimmed
 * before `parse` unless `untrimmed` (a value other programs read byte for byte, such as NODE_ENV).
 */
export function optional<T>(parse: (raw: string) => T, { untrimmed = false }: { untrimmed?: boolean } = {}) {
  return envString.transform((raw, ctx): T | undefined => {
    if (raw === undefined) return undefined;
    try {
      return parse(untrimmed ? raw : raw.trim());
    } catch (err) {
      if (!(err instanceof Invalid)) throw err;
      ctx.issues.push({ code: 'custom', message: err.message, input: undefined });
      return z.NEVER;
    }
  });
}

export function withDefault<T>(parse: (raw: string) => T, fallback: T, options: { untrimmed?: boolean } = {}) {
  return optional(parse, options).transform((v): T => (v === undefined ? fallback : v));
}

export const text = (raw: string): string => raw;

export function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (raw: string): number => {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `between ${min} and ${max}`;
    const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!(n >= min && n <= max)) throw new Invalid(`must be a whole number ${range}`);
    return n;
  };
}

const TRUE = ['true', '1', 'yes'];
const FALSE = ['false', '0', 'no'];

export function boolean(raw: string): boolean {
  const v = raw.toLowerCase();
  if (TRUE.includes(v)) return true;
  if (FALSE.includes(v)) return false;
  throw new Invalid('must be one of true, false, 1, 0, yes, no');
}

export function oneOf<const T extends string>(values: readonly T[]) {
  return (raw: string): T => {
    const found = values.find((v) => v === raw.toLowerCase());
    if (found === undefined) throw new Invalid(`must be one of ${values.join(', ')}`);
    return found;
  };
}

/** `raw` as an http(s) URL without credentials; `notUrl` is the message when it is no http(s) URL at all. */
export function httpUrlWithoutCredentials(raw: string, notUrl: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Invalid(notUrl);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Invalid(notUrl);
  if (url.username !== '' || url.password !== '') throw new Invalid('must not contain credentials');
  return url;
}

/** Base URL of an upstream: http(s), no credentials, query or fragment; stored without a trailing slash. */
export function httpUrl(raw: string): string {
  const url = httpUrlWithoutCredentials(raw, 'must be an http or https URL');
  if (url.search !== '' || url.hash !== '') throw new Invalid('must not contain a query or fragment');
  return url.href.replace(/\/+$/, '');
}

export function version(raw: string): string {
  if (!/^\d+\.\d+(\.\d+)?$/.test(raw)) throw new Invalid('must be a version like 3.9.3 or 4.1');
  return raw;
}

/** Comma-separated; empty items (a trailing comma) are ignored. */
export function list<T>(item: (raw: string, index: number) => T) {
  return (raw: string): T[] => {
    const items = raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    if (items.length === 0) throw new Invalid('must list at least one item');
    return items.map((s, i) => item(s, i));
  };
}

/**
 * A browser origin such as https://app.example.com, stored in its serialized form (lower-case scheme and
 * host, no default port, no trailing slash), the form browsers send and the CORS/CSRF checks compare.
 */
export function origin(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Invalid('must list origins like https://app.example.com');
  }
  const bare =
    url.username === '' && url.password === '' && url.pathname === '/' && url.search === '' && url.hash === '';
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    !bare ||
    !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]+\/?$/i.test(raw)
  ) {
    throw new Invalid('must list origins like https://app.example.com (scheme, host and optional port only)');
  }
  return url.origin;
}

/** A TCP port, or `off` for a listener the operator does not want. 0 picks a free port (tests). */
export function portOrOff(raw: string): number | null {
  if (raw.toLowerCase() === 'off') return null;
  return integer(0, 65535)(raw);
}

export interface HostPort {
  host: string;
  port: number;
}

/** host:port or [ipv6]:port. */
export function hostPort(raw: string): HostPort {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s[\]]+)):(\d{1,5})$/.exec(raw);
  const port = match === null ? NaN : Number(match[3]);
  if (match === null || port < 1 || port > 65535) throw new Invalid('must list host:port pairs');
  return { host: (match[1] ?? match[2]) as string, port };
}

const TOKEN_CHARS = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export function headerName(raw: string): string {
  if (!TOKEN_CHARS.test(raw)) throw new Invalid('must be a valid HTTP header name');
  return raw.toLowerCase();
}

export function cookieName(raw: string): string {
  if (!TOKEN_CHARS.test(raw)) throw new Invalid('must be a valid cookie name');
  return raw;
}

/** Read once at start-up, so a missing or unreadable CA fails the start, not the first request. */
export function pemFile(path: string): string {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch {
    throw new Invalid('cannot read the file');
  }
  if (!content.includes('-----BEGIN CERTIFICATE-----')) throw new Invalid('does not contain a PEM certificate');
  return content;
}
