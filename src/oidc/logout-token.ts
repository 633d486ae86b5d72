import { createHash } from 'node:crypto';
import { jwtVerify, type JWTPayload } from 'jose';
import type { OidcStores } from '../store/oidc-stores.js';
import type { Idp } from './idp.js';
import { idpKeys } from './idp-keys.js';

const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** Logout tokens older than this are refused, and their ids remembered this long (replay window). */
const MAX_AGE_SEC = 600;

import { LogoutTokenError } from './logout-token-error.js';

export { LogoutTokenError };

export interface LogoutSubject {
  sub?: string;
  sid?: string;
}

/**
 * Validates a back-channel logout token as OpenID Connect Back-Channel Logout 1.0 §2.6 asks: signed by a
 * key of the IdP's JWKS, our issuer, our client id as audience, recent `iat`, the back-channel event, a
 * `sid` or `sub`, no `nonce`, and a `jti` not seen before.
 */
export function createLogoutTokenVerifier(deps: { idp: Idp; stores: OidcStores }) {
  const keysOf = idpKeys(deps.idp);

  return async function verify(token: string): Promise<LogoutSubject> {
    const found = await keysOf();
    if (found === null) throw new LogoutTokenError('the identity provider publishes no jwks_uri');
    const { keys, issuer } = found;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer,
        audience: deps.idp.settings.clientId,
        maxTokenAge: MAX_AGE_SEC,
        requiredClaims: ['iat', 'jti'],
      }));
    } catch (err) {
      throw new LogoutTokenError(`logout token refused: ${(err as { code?: string }).code ?? (err as Error).name}`);
    }
    const events = payload.events as Record<string, unknown> | undefined;
    if (
      !events ||
      typeof events !== 'object' ||
      typeof events[BACKCHANNEL_EVENT] !== 'object' ||
      events[BACKCHANNEL_EVENT] === null
    ) {
      throw new LogoutTokenError('logout token has no back-channel logout event');
    }
    if ('nonce' in payload) throw new LogoutTokenError('logout token carries a nonce');
    const sub = typeof payload.sub === 'string' && payload.sub !== '' ? payload.sub : undefined;
    const sid = typeof payload.sid === 'string' && payload.sid !== '' ? payload.sid : undefined;
    if (sub === undefined && sid === undefined) throw new LogoutTokenError('logout token names neither sid nor sub');
    const jtiKey = createHash('sha256')
      .update(`${issuer}\n${String(payload.jti)}`)
      .digest('base64url');
    if (!(await deps.stores.firstUse(jtiKey, MAX_AGE_SEC * 2 * 1000)))
      throw new LogoutTokenError('logout token replayed');
    return { ...(sub !== undefined && { sub }), ...(sid !== undefined && { sid }) };
  };
}

export type LogoutTokenVerifier = ReturnType<typeof createLogoutTokenVerifier>;
