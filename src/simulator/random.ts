import { randomBytes } from 'node:crypto';

const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Lowercase alphanumerics, the alphabet of TigerGraph 3.x tokens and secrets. */
export function randomAlnum(length: number): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  // 252 = 7 * 36: rejecting the top bytes keeps every character equally likely.
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    const b = bytes[i]!;
    if (b < 252) out += ALNUM[b % 36];
  }
  return out.length === length ? out : out + randomAlnum(length - out.length);
}

export const newToken = (): string => randomAlnum(32);
export const newSecretValue = (): string => randomAlnum(32);
export const newAlias = (): string => `AUTO_GENERATED_ALIAS_${randomAlnum(7)}`;
