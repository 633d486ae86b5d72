import { httpUrlWithoutCredentials, Invalid } from './fields.js';
import { isSameOriginPath } from './same-origin-path.js';
import type { CredentialMap } from './credential-map.js';

/** Single sign-on settings (OIDC_*), present only when OIDC_ISSUER is set. */
export interface OidcConfig {
  /** Exactly as configured: issuer identifiers are compared byte for byte (a trailing slash matters). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** Space-separated, includes openid. */
  scopes: string;
  /**
   * Resource (RFC 8707) requested for the access token, which TigerGraph checks as `aud`; required to relay
   * the IdP's JWT, optional with a credential map ('' when unset: no resource is asked for).
   */
  audience: string;
  postLoginPath: string;
  /** Refresh the IdP access token this many seconds before it expires. */
  refreshBeforeSeconds: number;
  /** OIDC_CONNECTIONS: connections to each IdP origin at once, per instance; more calls wait for one. */
  connections: number;
  /**
   * OIDC_CREDENTIAL_MAP: the service holds a TigerGraph credential per rule and sessions use its tokens;
   * absent: the IdP's JWT access token is relayed (TigerGraph 3.10+ verifies it).
   */
  credentialMap?: CredentialMap;
}

/** An absolute http(s) URL without credentials or fragment, kept as written. */
export function absoluteUrl(raw: string): string {
  const url = httpUrlWithoutCredentials(raw, 'must be an absolute http or https URL');
  if (url.hash !== '') throw new Invalid('must not contain a fragment');
  return raw;
}

/** Space- or comma-separated scope names, stored space-separated. */
export function scopes(raw: string): string {
  const names = raw.split(/[\s,]+/).filter((s) => s !== '');
  if (names.length === 0 || names.some((n) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(n)))
    throw new Invalid('must list scope names');
  return names.join(' ');
}

export function sameOriginPath(raw: string): string {
  if (!isSameOriginPath(raw)) throw new Invalid('must be a path on this origin, like / or /app');
  return raw;
}

interface OidcValues {
  OIDC_ISSUER: string | undefined;
  OIDC_CLIENT_ID: string | undefined;
  OIDC_CLIENT_SECRET: string | undefined;
  OIDC_REDIRECT_URI: string | undefined;
  OIDC_SCOPES: string;
  OIDC_AUDIENCE: string | undefined;
  OIDC_POST_LOGIN_PATH: string;
  OIDC_REFRESH_BEFORE: number;
  OIDC_CONNECTIONS: number;
}

/** The rules (rules.ts) have made sure the required keys are there when the issuer is. */
export function oidcFrom(v: OidcValues, credentialMap?: CredentialMap): { oidc?: OidcConfig } {
  if (v.OIDC_ISSUER === undefined) return {};
  return {
    oidc: {
      issuer: v.OIDC_ISSUER,
      clientId: v.OIDC_CLIENT_ID ?? '',
      clientSecret: v.OIDC_CLIENT_SECRET ?? '',
      redirectUri: v.OIDC_REDIRECT_URI ?? '',
      scopes: v.OIDC_SCOPES,
      audience: v.OIDC_AUDIENCE ?? '',
      postLoginPath: v.OIDC_POST_LOGIN_PATH,
      refreshBeforeSeconds: v.OIDC_REFRESH_BEFORE,
      connections: v.OIDC_CONNECTIONS,
      ...(credentialMap !== undefined && { credentialMap }),
    },
  };
}
