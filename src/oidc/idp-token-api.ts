import * as client from 'openid-client';
import { AppError } from '../errors.js';
import type { TokenApi } from '@tigergraph-bff/client';
import type { RenewableGrant } from '../tokens/refresh-policy.js';
import { idpUnavailable, isIdpOutage, type Idp } from './idp.js';
import { accessClaims, jwtPayload } from './jwt-claims.js';

/**
 * The claims a credential map reads: the access token's (when a JWT) overlaid with the ID token's (checked by
 * openid-client), as the token endpoint answered them, at login and at every refresh.
 */
export function answerClaims(answer: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers) {
  return { ...(jwtPayload(answer.access_token) ?? {}), ...(answer.claims() ?? {}) } as Record<string, unknown>;
}

/** The RFC 8707 `resource` parameter for OIDC_AUDIENCE; none when it is unset (a credential map's opaque tokens). */
export const resourceOf = (audience: string): { resource?: string } => (audience === '' ? {} : { resource: audience });

/** When the IdP says neither expires_in nor exp, assume a short life: a refresh is cheaper than a 401. */
const DEFAULT_LIFETIME_SEC = 300;

/**
 * The token broker's upstream for OIDC sessions: the credential (TokenApi's `secret` parameter) is the IdP refresh token and a "token" the
 * IdP access token (a JWT TigerGraph verifies). Minting and refreshing are both a refresh_token grant, so
 * the broker's single-flight lease (src/tokens) keeps it to one grant per session across instances. A
 * rotated refresh token comes back as `renewWith` and is kept, sealed, with the token state.
 */
export function createIdpTokenApi(deps: {
  idp: Idp;
  now: () => number;
  /**
   * Credential-map sessions: the refreshed claims are read again, with the broker's `graph` parameter (the
   * session's scope, mapped-sessions.ts); throwing ends the session. Absent: claims are not read.
   */
  recheck?: (claims: Record<string, unknown>, scope: string | undefined) => void;
}): TokenApi {
  const { idp, now } = deps;

  async function grant(refreshToken: string, scope?: string): Promise<RenewableGrant> {
    // A login without offline_access has nothing to renew with: the session ends with its access token.
    if (refreshToken === '') throw new AppError('session_expired', 'The sign-on has expired; log in again');
    const config = await idp.configuration();
    let answer: Awaited<ReturnType<typeof client.refreshTokenGrant>>;
    try {
      answer = await client.refreshTokenGrant(config, refreshToken, resourceOf(idp.settings.audience));
    } catch (err) {
      if (isIdpOutage(err)) throw idpUnavailable(err);
      throw new AppError('session_expired', 'The identity provider ended the sign-on; log in again', { cause: err });
    }
    if (deps.recheck) {
      try {
        deps.recheck(answerClaims(answer), scope);
      } catch (err) {
        throw new AppError('session_expired', 'Your access at the identity provider changed; log in again', {
          cause: err,
        });
      }
    }
    return grantOf(answer, refreshToken, now());
  }

  return {
    era: 'jwt',
    requestToken: (refreshToken, _lifetime, options) => grant(refreshToken, options?.graph),
    refreshToken: (refreshToken, _token, _lifetime, options) => grant(refreshToken, options?.graph),
    // Only the access token: a replaced or superseded access token must not take the refresh token with it.
    // Logout revokes the refresh token itself (oidc-sessions.ts, end and revokeEnded).
    async deleteToken(_refreshToken, token) {
      await revokeAtIdp(idp, token, 'access_token');
    },
  };
}

export function grantOf(
  answer: client.TokenEndpointResponse,
  usedRefreshToken: string | undefined,
  nowMs: number,
): RenewableGrant {
  const claims = accessClaims(answer.access_token);
  const nowSec = Math.floor(nowMs / 1000);
  const expiresIn = typeof answer.expires_in === 'number' ? answer.expires_in : undefined;
  const expiresAt = expiresIn !== undefined ? nowSec + expiresIn : (claims?.exp ?? nowSec + DEFAULT_LIFETIME_SEC);
  const rotated =
    answer.refresh_token !== undefined && answer.refresh_token !== usedRefreshToken ? answer.refresh_token : undefined;
  return { token: answer.access_token, expiresAt, ...(rotated !== undefined && { renewWith: rotated }) };
}

/**
 * RFC 7009 revocation when the IdP offers it; nothing to do otherwise. Outages reject (callers log them or
 * retry); a refusal (e.g. `unsupported_token_type` for a JWT access token the IdP cannot revoke) is final.
 */
export async function revokeAtIdp(idp: Idp, token: string, hint: 'access_token' | 'refresh_token'): Promise<boolean> {
  if (token === '') return false;
  const config = await idp.configuration();
  if (!config.serverMetadata().revocation_endpoint) return false;
  try {
    await client.tokenRevocation(config, token, { token_type_hint: hint });
    return true;
  } catch (err) {
    if (isIdpOutage(err)) throw idpUnavailable(err);
    return false;
  }
}
