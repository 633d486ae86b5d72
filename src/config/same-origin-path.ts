/**
 * Is `value` a path on this origin that a browser cannot read as another origin? Only `/` followed by
 * something that is not `/` or `\` (browsers treat `//host` and `/\host` as scheme-relative), no control
 * characters or backslashes anywhere, and the same after percent-decoding (an encoded `%2F%2F` or `%5C`
 * may be decoded by a proxy or a framework on the way back).
 */
export function isSameOriginPath(value: string): boolean {
  if (value.length === 0 || value.length > 2048) return false;
  let decoded = value;
  for (let i = 0; i < 3; i++) {
    if (!plainPath(decoded)) return false;
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      return false;
    }
    if (next === decoded) return true;
    decoded = next;
  }
  return false;
}

function plainPath(p: string): boolean {
  if (!p.startsWith('/') || p.startsWith('//')) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\\\x00-\x1f\x7f]/.test(p)) return false;
  // Anything a URL parser would take as the start of an authority or a scheme at the front.
  try {
    return new URL(p, 'http://origin.invalid').origin === 'http://origin.invalid';
  } catch {
    return false;
  }
}
