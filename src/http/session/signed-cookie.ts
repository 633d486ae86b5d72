import signature from 'cookie-signature';

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
 * The signed session id as express-session has always written it, `s:<sid>.<base64 HMAC-SHA256 without
 * padding>` by cookie-signature (express-session's own signer), so cookies survive upgrades both ways.
 * Signed with the first secret.
 */
export function signSessionId(sid: string, secrets: readonly string[]): string {
  return `s:${signature.sign(sid, secrets[0] as string)}`;
}

/** The session id of a signed value, checked against every secret (rotation); null when unsigned or forged. */
export function unsignSessionId(value: string | undefined, secrets: readonly string[]): string | null {
  if (value === undefined || !value.startsWith('s:')) return null;
  const signed = value.slice(2);
  if (signed.lastIndexOf('.') <= 0) return null;
  for (const secret of secrets) {
    const sid = signature.unsign(signed, secret);
    if (sid !== false) return sid;
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
