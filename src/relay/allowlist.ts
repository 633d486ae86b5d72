/**
 * RELAY_ALLOW: which methods and path prefixes the relay may forward to the data server.
 *
 * Spec: comma-separated entries, each `[METHOD ]/prefix`, e.g. `GET /graph/,POST /query/,/echo`.
 * - METHOD is one of GET HEAD POST PUT PATCH DELETE, or `*` for all of them.
 * - No METHOD means GET (reads only): an operator who forgets the method never opens writes by accident.
 * - GET always allows HEAD too (same resource, no body).
 * - Prefixes match whole segments: `/graph/` and `/graph` both match `/graph` and `/graph/x`, never
 *   `/graphx`. Matching is case-sensitive, like RESTPP's own routing.
 * OPTIONS, CONNECT and TRACE are never relayed (CORS preflights are answered by the BFF itself).
 */
export interface AllowRule {
  /** Upper-case methods this rule opens. */
  readonly methods: readonly string[];
  /** The prefix without its trailing slash ('' for the root). */
  readonly base: string;
  /** `base + '/'`, precomputed so matching allocates nothing. */
  readonly baseSlash: string;
}

/** Reads and queries; writes (upserts, deletes, schema changes) must be opened explicitly. */
export const DEFAULT_RELAY_ALLOW =
  'GET /echo,GET /version,GET /endpoints,GET /graph/,GET /query/,POST /query/,POST /builtins/';

const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const READ_METHODS = ['GET', 'HEAD'] as const;
// RFC 3986 pchar without '%': prefixes are matched against decoded paths, so escapes have no meaning here.
const PREFIX_CHARS = /^\/[A-Za-z0-9._~!$&'()*+,;=:@/-]*$/;
// Never relayed whatever the allowlist says; refusing them here makes a bad config fail at start-up.
const FORBIDDEN_FIRST_SEGMENT = /^\/(requesttoken|gsql)/i;

export function parseRelayAllow(spec: string): AllowRule[] {
  const rules: AllowRule[] = [];
  for (const raw of spec.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    rules.push(parseEntry(entry));
  }
  if (rules.length === 0) throw new Error('RELAY_ALLOW has no entries');
  return rules;
}

function parseEntry(entry: string): AllowRule {
  const parts = entry.split(/\s+/);
  if (parts.length > 2) throw invalid(entry, 'expected "[METHOD ]/prefix"');
  const prefix = parts.length === 2 ? parts[1]! : parts[0]!;
  const methods = parts.length === 2 ? parseMethod(entry, parts[0]!) : READ_METHODS;
  if (!PREFIX_CHARS.test(prefix))
    throw invalid(entry, 'the prefix must start with "/" and hold no "%", "\\", "?" or "#"');
  const segments = prefix.split('/').slice(1);
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment === '.' || segment === '..') throw invalid(entry, 'dot segments are not allowed');
    if (segment === '' && i !== segments.length - 1) throw invalid(entry, 'empty segments ("//") are not allowed');
  }
  if (FORBIDDEN_FIRST_SEGMENT.test(prefix)) throw invalid(entry, '/requesttoken and /gsql are never relayed');
  const base = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  return { methods, base, baseSlash: `${base}/` };
}

function parseMethod(entry: string, method: string): readonly string[] {
  if (method === '*') return ALL_METHODS;
  const upper = method.toUpperCase();
  if (upper === 'GET') return READ_METHODS;
  if ((ALL_METHODS as readonly string[]).includes(upper)) return [upper];
  throw invalid(entry, `unsupported method "${method}"`);
}

function invalid(entry: string, why: string): Error {
  return new Error(`RELAY_ALLOW entry "${entry}" is invalid: ${why}`);
}

/** `path` is the decoded path without query (see path-guard); `method` as Node reports it (upper case). */
export function isAllowed(rules: readonly AllowRule[], method: string, path: string): boolean {
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i]!;
    if (!rule.methods.includes(method)) continue;
    if (path === rule.base || path.startsWith(rule.baseSlash)) return true;
  }
  return false;
}
