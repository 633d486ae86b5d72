import { createHmac, hkdfSync } from 'node:crypto';

/**
 * What a session logged in with: a secret, a TigerGraph user name (password login), an IdP subject; or
 * `masked`, a secret's masked form as TigerGraph shows it (`abc****xyz`), the key of the alias index
 * (sessions/secret-masks.ts).
 */
export type CredentialKind = 'secret' | 'user' | 'oidc' | 'masked';

/**
 * A credential's id for per-credential limits and Redis key names: an HMAC, so neither the secret nor the
 * user name appears in Redis, logs or metrics, and without the key nobody can test a guess against a key
 * name. 22 base64url characters (132 bits).
 */
export type CredentialIds = (kind: CredentialKind, value: string) => string;

/**
 * Ids keyed by a key derived (HKDF-SHA256) from the signing secret every replica shares (SESSION_SECRET's
 * first entry), so all replicas agree. Promoting a new SESSION_SECRET changes every id: sessions made
 * before count under their old id until they end (docs/deploying.md, "Hardening").
 */
export function credentialIds(signingSecret: string): CredentialIds {
  const key = Buffer.from(hkdfSync('sha256', signingSecret, '', 'tgbff credential id v1', 32));
  return (kind, value) => createHmac('sha256', key).update(`${kind}\n${value}`).digest('base64url').slice(0, 22);
}
