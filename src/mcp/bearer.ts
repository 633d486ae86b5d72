import { jwtVerify, type JWTPayload } from 'jose';
import { AppError } from '../errors.js';
import type { Idp } from '../oidc/idp.js';
import { idpKeys } from '../oidc/idp-keys.js';

/** Who an agent acts for: the verified access token's subject and claims (for the credential map). */
export interface McpPerson {
  sub: string;
  claims: Record<string, unknown>;
  /** When the token was issued (seconds), for a sign-out that came after it. */
  iat: number;
  /** The IdP session id (`sid`), when the IdP puts one in its access tokens, for a back-channel logout by sid. */
  idpSid?: string;
  /** The token itself: relayed to TigerGraph only without a credential map (3.10+ JWT mode), never answered. */
  token: string;
}

/** Longer than any bearer a header can carry here: refused before a signature check. */
const MAX_TOKEN_CHARS = 8192;

/**
 * RFC 6750 §3 / RFC 9728 §5.1: every 401 of /mcp names the protected resource's metadata, so an agent
 * finds the authorization server from the challenge alone; `error` only when a token was sent.
 */
export function challenge(metadataUrl: string, error?: { code: 'invalid_token'; description: string }): AppError {
  const parts = [`Bearer resource_metadata="${metadataUrl}"`];
  if (error) parts.push(`error="${error.code}"`, `error_description="${error.description}"`);
  return new AppError(
    'not_authenticated',
    error ? `The bearer token is not accepted: ${error.description}` : 'A bearer token is required',
    {
      headers: { 'WWW-Authenticate': parts.join(', ') },
    },
  );
}

/** The bearer of an Authorization header, or undefined (none, another scheme, or malformed). */
export function bearerOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header.trim());
  return m?.[1];
}

/**
 * An IdP access token checked as MCP's authorization spec asks of a resource server: signed by a key of the
 * IdP's JWKS, our issuer, not expired, and issued for this resource (`aud` = MCP_RESOURCE, RFC 8707): a token
 * for TigerGraph's audience, for another API, or an ID token is refused. The reason is short and fixed (jose's
 * code), never the token.
 */
export function createBearerVerifier(deps: { idp: Idp; resource: string; metadataUrl: string }) {
  const keysOf = idpKeys(deps.idp);
  return async function verify(token: string): Promise<McpPerson> {
    if (token.length > MAX_TOKEN_CHARS)
      throw challenge(deps.metadataUrl, { code: 'invalid_token', description: 'too long' });
    const found = await keysOf();
    if (found === null)
      throw new AppError('idp_unavailable', 'The identity provider publishes no signing keys', { dependency: 'idp' });
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, found.keys, {
        issuer: found.issuer,
        audience: deps.resource,
        requiredClaims: ['sub', 'exp', 'iat'],
        clockTolerance: 5,
      }));
    } catch (err) {
      const code = (err as { code?: string }).code;
      // The JWKS fetch failing is the IdP's outage, not the agent's token.
      if (code === 'ERR_JWKS_TIMEOUT' || (err as Error).name === 'TypeError')
        throw new AppError('idp_unavailable', { cause: err, dependency: 'idp' });
      const description =
        code === 'ERR_JWT_EXPIRED'
          ? 'expired'
          : code === 'ERR_JWT_CLAIM_VALIDATION_FAILED'
            ? `its ${(err as { claim?: string }).claim ?? 'claims'} is not for this resource`
            : 'not a token of the identity provider';
      throw challenge(deps.metadataUrl, { code: 'invalid_token', description });
    }
    if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 512)
      throw challenge(deps.metadataUrl, { code: 'invalid_token', description: 'no usable subject' });
    return {
      sub: payload.sub,
      claims: payload as Record<string, unknown>,
      iat: payload.iat ?? 0,
      ...(typeof payload.sid === 'string' &&
        payload.sid !== '' &&
        payload.sid.length <= 512 && { idpSid: payload.sid }),
      token,
    };
  };
}

export type BearerVerifier = ReturnType<typeof createBearerVerifier>;
