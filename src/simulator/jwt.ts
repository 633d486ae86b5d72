import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface JwtClaims {
  sub: string;
  iat: number;
  exp: number;
  iss: string;
  graph?: string;
  /** Not in TigerGraph's sample; keeps two tokens minted in the same second for the same user distinct. */
  jti: string;
}

const b64url = (data: string | Buffer): string => Buffer.from(data).toString('base64url');

/** HS256 JWTs shaped like TigerGraph 4.1's GSQL-issued tokens (header `{"alg":"HS256"}`). */
export function createJwtSigner(key: Buffer = randomBytes(32)) {
  const header = b64url(JSON.stringify({ alg: 'HS256' }));
  const sign = (input: string): string => createHmac('sha256', key).update(input).digest('base64url');

  return {
    sign(claims: Omit<JwtClaims, 'iss' | 'jti'>): string {
      const full: JwtClaims = { ...claims, iss: 'TigerGraph', jti: randomBytes(6).toString('hex') };
      const body = `${header}.${b64url(JSON.stringify(full))}`;
      return `${body}.${sign(body)}`;
    },
    /** The claims when the signature is ours, else undefined. Expiry is the caller's business. */
    verify(token: string): JwtClaims | undefined {
      const parts = token.split('.');
      if (parts.length !== 3) return undefined;
      const expected = Buffer.from(sign(`${parts[0]}.${parts[1]}`));
      const given = Buffer.from(parts[2]!);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
      try {
        return JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as JwtClaims;
      } catch {
        return undefined;
      }
    },
  };
}

export type JwtSigner = ReturnType<typeof createJwtSigner>;
