import { AppError } from '../errors.js';
import { isAllowed, type AllowRule } from './allowlist.js';

/**
 * Turns the browser's raw URL into the path+query the data server gets, or refuses it.
 *
 * The allowlist is checked against the decoded path while the raw (still encoded) path is forwarded,
 * so the two must have the same structure: every escape that could change structure once some server
 * decodes it (`.`, `/`, `\`, `%` itself, i.e. double encoding, control characters) is refused, as are
 * dot segments, empty segments (`//`, protocol-relative), backslashes and absolute URLs. Escapes of
 * ordinary characters (`%72`, UTF-8 vertex ids) are fine, and are decoded before any check.
 */
export interface RelayTarget {
  /** Decoded path after the mount prefix, without query: what the allowlist and the blocklist see. */
  readonly path: string;
  /** Raw path after the mount prefix plus the raw query, appended to the upstream base path. */
  readonly target: string;
}

const SLASH = 0x2f;
const PERCENT = 0x25;
const BACKSLASH = 0x5c;
const HASH = 0x23;
const MAX_REPORTED_PATH = 120;

export function parseRelayPath(originalUrl: string, mount: string): RelayTarget {
  // Absolute-form request targets ("http://evil/api/x") fail here too: they do not start with the mount.
  if (!originalUrl.startsWith(mount) || originalUrl.charCodeAt(mount.length) !== SLASH) throw invalidPath();
  const q = originalUrl.indexOf('?', mount.length);
  const end = q < 0 ? originalUrl.length : q;
  let escaped = false;
  let previous = 0;
  for (let i = mount.length; i < end; i++) {
    const c = originalUrl.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f || c === BACKSLASH || c === HASH) throw invalidPath();
    if (c === SLASH && previous === SLASH) throw invalidPath();
    if (c === PERCENT) {
      const byte = hexByte(originalUrl, i + 1);
      if (byte < 0 || isStructural(byte)) throw invalidPath();
      escaped = true;
      i += 2;
    }
    previous = c;
  }
  for (let i = end + 1; i < originalUrl.length; i++) {
    const c = originalUrl.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || c === HASH) throw invalidPath();
  }
  const rawPath = originalUrl.slice(mount.length, end);
  const path = escaped ? decode(rawPath) : rawPath;
  checkSegments(path);
  const lower = path.toLowerCase();
  // RESTPP's nginx routes "^/restpp/requesttoken.*" to the token server, so block any such segment prefix.
  if (lower.startsWith('/gsql') || lower.includes('/requesttoken')) throw notAllowed('', path);
  return { path, target: q < 0 ? rawPath : rawPath + originalUrl.slice(q) };
}

/** The whole gate: a well-formed path and an allowlisted method + prefix. Returns the decoded path and the upstream target. */
export function guardRelayRequest(
  rules: readonly AllowRule[],
  method: string,
  originalUrl: string,
  mount: string,
): RelayTarget {
  const found = parseRelayPath(originalUrl, mount);
  if (!isAllowed(rules, method, found.path)) throw notAllowed(method, found.path);
  return found;
}

function hexByte(s: string, at: number): number {
  const hi = hexDigit(s.charCodeAt(at));
  const lo = hexDigit(s.charCodeAt(at + 1));
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

function isStructural(byte: number): boolean {
  return byte < 0x20 || byte === 0x7f || byte === 0x2e || byte === SLASH || byte === BACKSLASH || byte === PERCENT;
}

function decode(rawPath: string): string {
  try {
    return decodeURIComponent(rawPath);
  } catch {
    throw invalidPath(); // malformed UTF-8 in escapes
  }
}

/** Dot segments (also with ";params", which some servers strip) and empty segments except a trailing one. */
function checkSegments(path: string): void {
  let start = 1;
  while (start <= path.length) {
    let stop = path.indexOf('/', start);
    if (stop < 0) stop = path.length;
    if (stop === start && stop !== path.length) throw invalidPath();
    if (path.charCodeAt(start) === 0x2e) {
      const segment = path.slice(start, stop);
      if (segment === '.' || segment === '..' || segment.startsWith('.;') || segment.startsWith('..;')) {
        throw invalidPath();
      }
    }
    start = stop + 1;
  }
}

function invalidPath(): AppError {
  return new AppError('invalid_path', 'The relay path is malformed or uses forbidden encodings');
}

function notAllowed(method: string, path: string): AppError {
  const shown = path.length > MAX_REPORTED_PATH ? `${path.slice(0, MAX_REPORTED_PATH)}…` : path;
  const what = method === '' ? shown : `${method} ${shown}`;
  return new AppError('path_not_allowed', `${what} is not relayed`);
}
