/**
 * Reads the claims of a JWT access token without verifying it: the data server verifies it (Security.JWT.*).
 * The service only looks, to refuse at login a token TigerGraph would refuse on every request (no `sub`,
 * another audience) and to learn its expiry when the token response does not say.
 */
export interface AccessClaims {
  sub: string;
  aud: string[];
  exp?: number;
  graph?: string;
}

/** A JWT's payload as an object, unverified (the caller had it from the IdP's token endpoint); null otherwise. */
export function jwtPayload(token: string): Record<string, unknown> | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as unknown;
    return payload !== null && typeof payload === 'object' && !Array.isArray(payload)
      ? (payload as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

export function accessClaims(token: string): AccessClaims | null {
  const payload = jwtPayload(token);
  if (payload === null || typeof payload.sub !== 'string' || payload.sub === '') return null;
  const aud =
    typeof payload.aud === 'string'
      ? [payload.aud]
      : Array.isArray(payload.aud)
        ? payload.aud.filter((a): a is string => typeof a === 'string')
        : [];
  return {
    sub: payload.sub,
    aud,
    ...(typeof payload.exp === 'number' && { exp: payload.exp }),
    ...(typeof payload.graph === 'string' && { graph: payload.graph }),
  };
}
