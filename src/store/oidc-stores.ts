/**
 * What OIDC login and logout keep besides sessions. Redis keys (keys.ts; per-key operations only, so they work on
 * Cluster whatever slot each lands in): `<prefix>oidc-idx:{key}` set of session ids for an IdP `sid` or
 * `sub`, `<prefix>oidc-jti:{key}` logout token ids and completed logins already used. Both are written only after the IdP has
 * vouched for something (a login that completed, a logout token it signed); a pending login lives in the
 * browser's sealed pre-login cookie, so anonymous requests never write here.
 */
export interface OidcStores {
  /** IdP session and subject → this service's session ids, for back-channel logout. */
  sessionIndex: {
    add(keys: readonly string[], sid: string, ttlMs: number): Promise<void>;
    members(key: string): Promise<string[]>;
    remove(keys: readonly string[], sid: string): Promise<void>;
  };
  /** True the first time `key` is seen within ttlMs; false on a replay. */
  firstUse(key: string, ttlMs: number): Promise<boolean>;
  /** Whether firstUse has seen `key` (and its time is not up); writes nothing. */
  used(key: string): Promise<boolean>;
}
