import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Cipher } from './types.js';

export interface EncryptionKey {
  id: string;
  key: Buffer;
}

const VERSION = 'v1';
const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const BASE64_PATTERN = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * Parses `id:base64key,…` (first entry encrypts). Errors name the entry by id or position and never
 * echo what was given, since a malformed entry may still be key material.
 */
export function parseEncryptionKeys(spec: string): EncryptionKey[] {
  const entries = spec.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
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

/** AES-256-GCM; output `v1.<keyId>.<iv>.<tag>.<ciphertext>`, base64url parts. */
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
    encrypt(plain) {
      const iv = randomBytes(12);
      const header = `${VERSION}.${current.id}`;
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      // The header is authenticated too, so a value cannot be relabelled to another key id or version.
      cipher.setAAD(Buffer.from(header));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [header, b64(iv), b64(tag), b64(body)].join('.');
    },
    decrypt(sealed) {
      const parts = sealed.split('.');
      if (parts.length !== 5 || parts[0] !== VERSION) throw new Error('sealed value: unsupported format');
      const [version, id, iv, tag, body] = parts as [string, string, string, string, string];
      const key = byId.get(id);
      if (!key) throw new Error(`sealed value: unknown key id "${id.slice(0, 64)}"`);
      try {
        // A fixed tag length refuses truncated tags, which GCM would otherwise accept.
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: 16 });
        decipher.setAAD(Buffer.from(`${version}.${id}`));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch (cause) {
        throw new Error('sealed value: failed authentication', { cause });
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
