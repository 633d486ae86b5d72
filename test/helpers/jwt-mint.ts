import { createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

/**
 * Makes JWTs the way an identity provider would, for tests of the simulator's external JWT
 * verification (`startSimulator({ jwt: { hmacSecret | rsaPublicKey, issuer?, audience? } })`).
 * node:crypto only. Typical use:
 *
 *   const keys = rsaKeys('k1');
 *   const sim = await startSimulator({ version: '4.1.0', jwt: { rsaPublicKey: keys.jwks, audience: 'bff' } });
 *   const token = mintJwt({ alg: 'RS256', key: keys.privateKey, kid: 'k1' }, { sub: 'tigergraph', aud: 'bff', ...times(300) });
 *   // Authorization: Bearer <token> on sim.restppUrl + '/echo'
 */
export type JwtAlg = 'HS256' | 'HS384' | 'HS512' | 'RS256' | 'RS384' | 'RS512';

const b64url = (data: string | Buffer): string => Buffer.from(data).toString('base64url');
const HASH = { '256': 'sha256', '384': 'sha384', '512': 'sha512' } as const;

/** `iat` now and `exp` now + lifetime (seconds); pass `nowMs` when the simulator runs on a test clock. */
export function times(lifetimeSeconds: number, nowMs: number = Date.now()): { iat: number; exp: number } {
  const iat = Math.floor(nowMs / 1000);
  return { iat, exp: iat + lifetimeSeconds };
}

/**
 * Signs `claims` with `alg`: HS* with `key` as the shared secret (string), RS* with `key` as the
 * private key. `header` adds to (or overrides) the header, e.g. `{ alg: 'none' }` for negative tests.
 */
export function mintJwt(
  opts: { alg: JwtAlg; key: string | KeyObject; kid?: string; header?: Record<string, unknown> },
  claims: Record<string, unknown>,
): string {
  const header = { alg: opts.alg, typ: 'JWT', ...(opts.kid !== undefined && { kid: opts.kid }), ...opts.header };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  const hash = HASH[opts.alg.slice(2) as keyof typeof HASH];
  const signature = opts.alg.startsWith('HS')
    ? createHmac(hash, typeof opts.key === 'string' ? opts.key : opts.key.export())
        .update(input)
        .digest()
    : sign(hash, Buffer.from(input), opts.key);
  return `${input}.${b64url(signature)}`;
}

/** A fresh RSA key pair with its public half as PEM, as one JWK and as a JWKS document (all strings). */
export function rsaKeys(kid = 'test-key'): { privateKey: KeyObject; publicPem: string; jwk: string; jwks: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig' };
  return {
    privateKey,
    publicPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    jwk: JSON.stringify(jwk),
    jwks: JSON.stringify({ keys: [jwk] }),
  };
}
