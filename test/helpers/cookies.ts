/** Splits a Set-Cookie header into its name=value and lower-cased attributes. */
export function parseSetCookie(header: string): {
  name: string;
  value: string;
  attributes: Record<string, string | true>;
} {
  const [pair, ...attrs] = header.split(';').map((part) => part.trim());
  const eq = pair!.indexOf('=');
  const attributes: Record<string, string | true> = {};
  for (const attr of attrs) {
    const i = attr.indexOf('=');
    if (i < 0) attributes[attr.toLowerCase()] = true;
    else attributes[attr.slice(0, i).toLowerCase()] = attr.slice(i + 1);
  }
  return { name: pair!.slice(0, eq), value: pair!.slice(eq + 1), attributes };
}

/**
 * The session id inside a session cookie, `name=s%3A<sid>.<signature>`: a `name=value` pair or a whole
 * Set-Cookie header.
 */
export function sidOf(cookie: string): string {
  const pair = cookie.split(';')[0]!;
  const value = decodeURIComponent(pair.slice(pair.indexOf('=') + 1));
  if (!value.startsWith('s:') || !value.includes('.')) throw new Error('cookie is not a signed session id');
  return value.slice(2, value.indexOf('.'));
}
