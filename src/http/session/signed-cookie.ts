import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The value of cookie `name` in a Cookie header, as the `cookie` package parses it: the first of
 * that name wins, surrounding quotes go, and %-escapes are decoded when they decode.
 */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  let start = 0;
  while (start < header.length) {
    let end = header.indexOf(';', start);
    if (end === -1) end = header.length;
    const eq = header.indexOf('=', start);
    if (eq !== -1 && eq < end && header.slice(start, eq).trim() === name) {
      let value = header.slice(eq + 1, end).trim();
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
      return value.includes('%') ? tryDecode(value) : value;
    }
    start = end + 1;
  }
  return undefined;
}

/**
 * express-session's signed session id: `s:<sid>.<base64 HMAC-SHA256 without padding>`, checked against
 * every secret (the first signs, the rest still verify during a rotation). Null when unsigned or forged.
 */
export function unsignSessionId(value: string | undefined, secrets: readonly string[]): string | null {
  if (value === undefined || !value.startsWith('s:')) return null;
  const signed = value.slice(2);
  const dot = signed.lastIndexOf('.');
  if (dot <= 0) return null;
  const sid = signed.slice(0, dot);
  const given = Buffer.from(signed.slice(dot + 1));
  for (const secret of secrets) {
    const expected = Buffer.from(createHmac('sha256', secret).update(sid).digest('base64').replace(/=+$/, ''));
    if (expected.length === given.length && timingSafeEqual(expected, given)) return sid;
  }
  return null;
}

function tryDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
