import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * What a sealed value is for and whose it is (a session id, or a secret's alias). Bound into the AES-GCM
 * additional data, so a value copied into another session's record, or into another field, does not open.
 */
export interface SealContext {
  purpose: 'session-secret' | 'token' | 'secret-drop' | 'renewal' | 'id-token' | 'pre-login';
  owner: string;
}

/** AES-256-GCM under key ids: the first key encrypts, all decrypt. */
export interface Cipher {
  encrypt(plain: string, context: SealContext): string;
  /**
   * Throws a SealError on tamper, an unknown key id, another context, or a value sealed before contexts
   * were bound (`unbound`), unless `acceptUnbound` is set.
   */
  decrypt(sealed: string, context: SealContext, options?: { acceptUnbound?: boolean }): string;
}

export interface EncryptionKey {
  id: string;
  key: Buffer;
}

/** v2 binds a SealContext; v1 (0.1.x) bound only the header and is opened only on request. */
const VERSION = 'v2';
const UNBOUND = 'v1';
const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const BASE64_PATTERN = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * Parses `id:base64key,…` (first entry encrypts). Errors name the entry by id or position and never
 * echo what was given, since a malformed entry may still be key material.
 */
export function parseEncryptionKeys(spec: string): EncryptionKey[] {
  const entries = spec
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw new Error('encryption keys: at least one "id:base64key" entry is required');
  const keys = entries.map((entry, index) => {
    const colon = entry.indexOf(':');
    const id = colon > 0 ? entry.slice(0, colon) : '';
    if (!ID_PATTERN.test(id)) {
      throw new Error(`encryption keys: entry ${index + 1} needs an id of letters, digits, "_" or "-" before ":"`);
    }
    const encoded = entry.slice(colon + 1);
    const key = BASE64_PATTERN.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
    if (key.length !== 32) {
      throw new Error(`encryption keys: key "${id}" must be 32 bytes, base64-encoded (got ${key.length} bytes)`);
    }
    return { id, key };
  });
  assertUniqueIds(keys);
  return keys;
}

/** Why a sealed value did not open; `unbound` is a value from before 0.2.0, whose owner is unknown. */
export class SealError extends Error {
  constructor(
    readonly reason: 'format' | 'unknown_key' | 'unbound' | 'forged',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SealError';
  }
}

/** The contexts the service seals under: a session's secret and token state, and a secret's drop entry. */
export const sealedAs = {
  sessionSecret: (sid: string): SealContext => ({ purpose: 'session-secret', owner: sid }),
  token: (sid: string): SealContext => ({ purpose: 'token', owner: sid }),
  secretDrop: (alias: string): SealContext => ({ purpose: 'secret-drop', owner: alias }),
  /** An IdP refresh token that replaced the session's own (rotation), kept with the token state. */
  renewal: (sid: string): SealContext => ({ purpose: 'renewal', owner: sid }),
  /** An OIDC session's id token, kept for RP-initiated logout (id_token_hint). */
  idToken: (sid: string): SealContext => ({ purpose: 'id-token', owner: sid }),
  /** A pending OIDC login (state, nonce, PKCE verifier), owned by its random pre-login id. */
  preLogin: (id: string): SealContext => ({ purpose: 'pre-login', owner: id }),
};

/** The purpose has no newline, so header, purpose and owner can never be re-split into another context. */
const additionalData = (header: string, context: SealContext): Buffer =>
  Buffer.from(`${header}\n${context.purpose}\n${context.owner}`);

/** AES-256-GCM; output `v2.<keyId>.<iv>.<tag>.<ciphertext>`, base64url parts; header and context authenticated. */
export function createCipher(keys: EncryptionKey[]): Cipher {
  if (keys.length === 0) throw new Error('encryption keys: at least one key is required');
  for (const { id, key } of keys) {
    if (!ID_PATTERN.test(id)) throw new Error(`encryption keys: invalid key id "${id.slice(0, 64)}"`);
    if (key.length !== 32) throw new Error(`encryption keys: key "${id}" must be 32 bytes`);
  }
  assertUniqueIds(keys);
  const byId = new Map(keys.map(({ id, key }) => [id, key]));
  const current = keys[0]!;

  return {
    encrypt(plain, context) {
      const iv = randomBytes(12);
      const header = `${VERSION}.${current.id}`;
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      // The header is authenticated too, so a value cannot be relabelled to another key id or version.
      cipher.setAAD(additionalData(header, context));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [header, b64(iv), b64(tag), b64(body)].join('.');
    },
    decrypt(sealed, context, options) {
      const parts = sealed.split('.');
      if (parts.length !== 5 || (parts[0] !== VERSION && parts[0] !== UNBOUND)) {
        throw new SealError('format', 'sealed value: unsupported format');
      }
      const [version, id, iv, tag, body] = parts as [string, string, string, string, string];
      if (version === UNBOUND && options?.acceptUnbound !== true) {
        throw new SealError('unbound', 'sealed value: sealed before values were bound to their session');
      }
      const key = byId.get(id);
      if (!key) throw new SealError('unknown_key', `sealed value: unknown key id "${id.slice(0, 64)}"`);
      try {
        // A fixed tag length refuses truncated tags, which GCM would otherwise accept.
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: 16 });
        const header = `${version}.${id}`;
        decipher.setAAD(version === UNBOUND ? Buffer.from(header) : additionalData(header, context));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch (cause) {
        throw new SealError('forged', 'sealed value: failed authentication (tampered, or sealed for another owner)', {
          cause,
        });
      }
    },
  };
}

const b64 = (buf: Buffer): string => buf.toString('base64url');

function assertUniqueIds(keys: EncryptionKey[]): void {
  const seen = new Set<string>();
  for (const { id } of keys) {
    if (seen.has(id)) throw new Error(`encryption keys: key id "${id}" appears twice`);
    seen.add(id);
  }
}
