import { createHmac, createPublicKey, timingSafeEqual, verify as verifySignature, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { SimulatorJwtOptions } from './types.js';

/**
 * Verification of JWTs minted by someone else (an OIDC provider), as RESTPP does it when
 * `Security.JWT.RSA.PublicKey` / `Security.JWT.HMAC.Secret` (and optionally `Security.JWT.Issuer`,
 * `Security.JWT.Audience`) are set: docs/tigergraph-wire.md §6. Algorithms HS256/384/512 and RS256/384/512
 * only; an HS token is checked with the HMAC secret only and an RS token with the RSA key only, so `alg:
 * none` and HS-signed-with-the-public-key (alg confusion) are refused. The user and graph checks need
 * the simulator's state and live in data-auth.ts.
 */
export type JwtFailure =
  | { kind: 'format' }
  | { kind: 'signature' }
  | { kind: 'expired' }
  | { kind: 'not_yet_valid' }
  | { kind: 'issuer'; given: string }
  | { kind: 'audience'; given: string[] };

export interface ExternalClaims {
  sub: string;
  graph: string | undefined;
}

export interface ExternalJwtVerifier {
  verify(token: string, nowSeconds: number): { ok: true; claims: ExternalClaims } | { ok: false; failure: JwtFailure };
}

const HASH: Record<string, string> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' };
const B64URL = /^[A-Za-z0-9_-]+$/;
/** Clock skew allowed for `iat` [infer: TigerGraph documents no leeway]. */
const IAT_LEEWAY_SECONDS = 60;

interface RsaKey {
  key: KeyObject;
  kid: string | undefined;
  alg: string | undefined;
}

/** `@/path/file` reads the file (as `gadmin config set … @filepath` does); anything else is the content. */
export async function readKeyValue(value: string, what: string): Promise<string> {
  if (!value.startsWith('@')) return value;
  try {
    return await readFile(value.slice(1), 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${what} from ${value.slice(1)}: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
}

/** Resolves the keys once at start-up; a key that cannot be read or parsed fails start-up (never quoting it). */
export async function loadExternalJwtVerifier(opts: SimulatorJwtOptions): Promise<ExternalJwtVerifier> {
  const hmac = opts.hmacSecret === undefined ? undefined : await readKeyValue(opts.hmacSecret, 'jwt.hmacSecret');
  // A key file usually ends in a newline that is not part of the secret [infer].
  const hmacKey = hmac === undefined ? undefined : Buffer.from(hmac.replace(/\r?\n$/, ''), 'utf8');
  if (hmacKey !== undefined && hmacKey.length === 0) throw new Error('jwt.hmacSecret is empty');
  const rsa =
    opts.rsaPublicKey === undefined
      ? undefined
      : parseRsaKeys(await readKeyValue(opts.rsaPublicKey, 'jwt.rsaPublicKey'));
  if (hmacKey === undefined && rsa === undefined) throw new Error('jwt needs hmacSecret or rsaPublicKey');
  return {
    verify: (token, now) => verifyJwt(token, now, { hmacKey, rsa, issuer: opts.issuer, audience: opts.audience }),
  };
}

/** PEM (public key, certificate or private key), a single JWK, or a JWKS `{"keys":[…]}` (RSA keys only). */
export function parseRsaKeys(text: string): RsaKey[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let doc: unknown;
    try {
      doc = JSON.parse(trimmed);
    } catch {
      throw new Error('jwt.rsaPublicKey looks like JSON but does not parse');
    }
    const raw = doc as { keys?: unknown };
    const list = Array.isArray(raw.keys) ? raw.keys : [doc];
    const keys: RsaKey[] = [];
    for (const jwk of list as Array<Record<string, unknown>>) {
      if (jwk?.['kty'] !== 'RSA' || (jwk['use'] !== undefined && jwk['use'] !== 'sig')) continue;
      const { n, e } = jwk;
      if (typeof n !== 'string' || typeof e !== 'string') continue;
      keys.push({
        key: createPublicKey({ key: { kty: 'RSA', n, e }, format: 'jwk' }),
        kid: typeof jwk['kid'] === 'string' ? jwk['kid'] : undefined,
        alg: typeof jwk['alg'] === 'string' ? jwk['alg'] : undefined,
      });
    }
    if (keys.length === 0) throw new Error('jwt.rsaPublicKey: the JWK(S) holds no RSA signing key');
    return keys;
  }
  let key: KeyObject;
  try {
    key = createPublicKey(trimmed);
  } catch {
    throw new Error('jwt.rsaPublicKey is neither a PEM key nor a JWK(S)');
  }
  if (key.asymmetricKeyType !== 'rsa')
    throw new Error(`jwt.rsaPublicKey is a ${key.asymmetricKeyType ?? 'non-RSA'} key, not RSA`);
  return [{ key, kid: undefined, alg: undefined }];
}

function decodeJson(part: string): Record<string, unknown> | undefined {
  if (!B64URL.test(part) || part.length % 4 === 1) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

interface VerifyConfig {
  hmacKey: Buffer | undefined;
  rsa: RsaKey[] | undefined;
  issuer: string | undefined;
  audience: string | undefined;
}

function verifyJwt(token: string, now: number, cfg: VerifyConfig): ReturnType<ExternalJwtVerifier['verify']> {
  const fail = (failure: JwtFailure) => ({ ok: false as const, failure });
  const parts = token.split('.');
  if (parts.length !== 3 || !B64URL.test(parts[2]!)) return fail({ kind: 'format' });
  const header = decodeJson(parts[0]!);
  const payload = decodeJson(parts[1]!);
  if (!header || !payload) return fail({ kind: 'format' });
  const signingInput = Buffer.from(`${parts[0]}.${parts[1]}`);
  const signature = Buffer.from(parts[2]!, 'base64url');
  const match = typeof header['alg'] === 'string' ? /^(HS|RS)(256|384|512)$/.exec(header['alg']) : null;
  // alg none, PS/ES/EdDSA, or a family with no configured key: refused before any key is used.
  if (!match) return fail({ kind: 'signature' });
  const hash = HASH[match[2]!]!;
  if (match[1] === 'HS') {
    if (!cfg.hmacKey) return fail({ kind: 'signature' });
    const expected = createHmac(hash, cfg.hmacKey).update(signingInput).digest();
    if (expected.length !== signature.length || !timingSafeEqual(expected, signature))
      return fail({ kind: 'signature' });
  } else {
    const alg = header['alg'] as string;
    const kid = typeof header['kid'] === 'string' ? header['kid'] : undefined;
    const candidates = (cfg.rsa ?? []).filter(
      (k) => (kid === undefined || k.kid === undefined || k.kid === kid) && (k.alg === undefined || k.alg === alg),
    );
    if (!candidates.some((k) => verifySignature(hash, signingInput, k.key, signature)))
      return fail({ kind: 'signature' });
  }
  const { sub, exp, iat, iss, aud, graph } = payload;
  if (
    typeof sub !== 'string' ||
    sub === '' ||
    typeof exp !== 'number' ||
    (iat !== undefined && typeof iat !== 'number')
  ) {
    return fail({ kind: 'format' });
  }
  if (graph !== undefined && typeof graph !== 'string') return fail({ kind: 'format' });
  if (exp <= now) return fail({ kind: 'expired' });
  if (typeof iat === 'number' && iat > now + IAT_LEEWAY_SECONDS) return fail({ kind: 'not_yet_valid' });
  if (cfg.issuer !== undefined && iss !== cfg.issuer)
    return fail({ kind: 'issuer', given: typeof iss === 'string' ? iss : '' });
  if (cfg.audience !== undefined) {
    const given =
      typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
    if (!given.includes(cfg.audience)) return fail({ kind: 'audience', given });
  }
  return { ok: true, claims: { sub, graph: graph === '' ? undefined : graph } };
}
