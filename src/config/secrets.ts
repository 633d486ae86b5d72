import { randomBytes } from 'node:crypto';
import { parseEncryptionKeys, type EncryptionKey } from '../crypto/crypto.js';
import { Invalid, list } from './fields.js';

export type { EncryptionKey };

const MIN_SECRET_LENGTH = 32;

/** Comma-separated signing secrets, first signs; each long enough to resist guessing. */
export const sessionSecrets = list((raw, index) => {
  if (raw.length < MIN_SECRET_LENGTH) {
    throw new Invalid(`secret ${index + 1} is shorter than ${MIN_SECRET_LENGTH} characters`);
  }
  return raw;
});

/** `id:base64key,…` via the store's parser (the one the cipher trusts); its messages never echo key material. */
export function encryptionKeys(raw: string): EncryptionKey[] {
  try {
    return parseEncryptionKeys(raw);
  } catch (err) {
    throw new Invalid((err as Error).message.replace(/^encryption keys: /, ''));
  }
}

/** Outside production only: random per start, so sessions do not survive a restart. */
export const generateSessionSecrets = (): string[] => [randomBytes(32).toString('base64url')];
export const generateEncryptionKeys = (): EncryptionKey[] => [{ id: 'generated', key: randomBytes(32) }];
