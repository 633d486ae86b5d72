import { createRemoteJWKSet, customFetch, type FetchImplementation, type JWTVerifyGetKey } from 'jose';
import type { Idp } from './idp.js';

/**
 * The IdP's signing keys (its discovered jwks_uri) for jose's jwtVerify, fetched through the IdP's capped
 * agent like every other IdP call (idp.ts), re-fetched at most once per 30 s for an unknown key id (jose's
 * cooldown). Built again only when discovery names another jwks_uri. Null when the IdP publishes none.
 */
export function idpKeys(idp: Idp): () => Promise<{ keys: JWTVerifyGetKey; issuer: string } | null> {
  let keys: JWTVerifyGetKey | undefined;
  let keysUri: string | undefined;
  return async () => {
    const meta = (await idp.configuration()).serverMetadata();
    if (!meta.jwks_uri) return null;
    if (keys === undefined || keysUri !== meta.jwks_uri) {
      keysUri = meta.jwks_uri;
      keys = createRemoteJWKSet(new URL(meta.jwks_uri), { [customFetch]: idp.fetch as FetchImplementation });
    }
    return { keys, issuer: meta.issuer };
  };
}
