import * as client from 'openid-client';
import type { Logger } from '../observability/logger.js';
import { sealedAs } from '../crypto/crypto.js';
import type { OidcStores } from '../store/oidc-stores.js';
import type { Cipher, TokenStore } from '../store/types.js';
import type { TokenGrant } from '@tigergraph-bff/client';
import type { TokenBroker } from '../tokens/token-broker.js';
import type { Idp } from './idp.js';
import { revokeAtIdp } from './idp-token-api.js';
import { indexKeys } from './login-flow.js';
import type { LogoutSubject } from './logout-token.js';

/** The OIDC part of a stored session (what its end needs of it). */
export interface OidcSessionView {
  oidc?: { sub: string; idpSid?: string; idToken?: string };
}

/** A verified SSO login, as the lifecycle hands it over when the login failed part way. */
export interface OidcLoginView {
  refreshToken: string;
  grant: TokenGrant;
  sub: string;
  idpSid?: string;
}

const codeOf = (err: unknown) => ({ code: (err as { code?: string }).code, name: (err as Error).name });

/**
 * The IdP's side of OIDC sessions: the back-channel index, revocation of access and refresh tokens where
 * the IdP offers it, RP-initiated logout, and which sessions a logout token names. When a session starts
 * and ends, and in which order, is the session lifecycle's (src/sessions/); this is its OIDC strategy's
 * toolbox (src/sessions/kinds/oidc.ts).
 */
export function createOidcSessions(deps: {
  idp: Idp;
  broker: TokenBroker;
  tokens: TokenStore;
  stores: OidcStores;
  cipher: Cipher;
  absoluteTimeoutSec: number;
  logger: Logger;
}) {
  const { idp, logger } = deps;
  const tombstoneMs = deps.absoluteTimeoutSec * 1000;
  const keysOf = (tg: OidcSessionView) => (tg.oidc ? indexKeys(idp.settings.issuer, tg.oidc.sub, tg.oidc.idpSid) : []);

  return {
    /** The OIDC token broker (IdP access tokens, renewed with the IdP refresh token). */
    broker: deps.broker,

    /** Back-channel index entries for a fresh session (they expire with the longest session). */
    index: (sid: string, tg: OidcSessionView) => deps.stores.sessionIndex.add(keysOf(tg), sid, tombstoneMs),

    unindex: (sid: string, tg: OidcSessionView) => deps.stores.sessionIndex.remove(keysOf(tg), sid),

    /**
     * Revokes an ended session's access token and (`atIdp`) its refresh token at the IdP, and drops its token
     * state. `retry` (the session-end sweeper): an outage rejects, the state stays for the retry, the refresh
     * token first (the long-lived one). Otherwise (logout): nothing here throws for the IdP's sake.
     */
    async revoke(sid: string, refreshToken: string, options: { retry: boolean; atIdp: boolean }): Promise<boolean> {
      if (options.retry) {
        const state = await deps.tokens.get(sid);
        const refreshRevoked = options.atIdp
          ? await revokeAtIdp(idp, state?.renewWith ?? refreshToken, 'refresh_token')
          : false;
        const accessRevoked = await deps.broker.revoke(sid, refreshToken, { keepOnFailure: true });
        return accessRevoked || refreshRevoked;
      }
      const state = await deps.tokens.get(sid).catch(() => null);
      if (!options.atIdp) {
        await deps.tokens.delete(sid).catch(() => undefined);
        return false;
      }
      let accessRevoked = false;
      try {
        // Revokes the access token (when still live) and deletes the state, under the refresh lease.
        accessRevoked = await deps.broker.revoke(sid, refreshToken);
      } catch (err) {
        logger.warn({ err: codeOf(err) }, 'access token revocation at logout failed');
        await deps.tokens.delete(sid).catch(() => undefined);
      }
      await revokeAtIdp(idp, state?.renewWith ?? refreshToken, 'refresh_token').catch((err: unknown) =>
        logger.warn({ err: codeOf(err) }, 'refresh token revocation at logout failed'),
      );
      return accessRevoked;
    },

    /** A login that failed part way: its access token and refresh token revoked, its index entries gone. */
    async abandon(sid: string | undefined, login: OidcLoginView): Promise<void> {
      const results = await Promise.allSettled([
        deps.broker.discard(login.refreshToken, login.grant),
        revokeAtIdp(idp, login.refreshToken, 'refresh_token'),
        sid === undefined
          ? Promise.resolve()
          : deps.stores.sessionIndex.remove(
              keysOf({ oidc: { sub: login.sub, ...(login.idpSid !== undefined && { idpSid: login.idpSid }) } }),
              sid,
            ),
      ]);
      for (const r of results)
        if (r.status === 'rejected') logger.warn({ err: codeOf(r.reason) }, 'failed login: an IdP token not revoked');
    },

    /**
     * Where the browser goes to end the IdP session too (RP-initiated logout), when the IdP offers it. The
     * id token rides as `id_token_hint` only when `hint` (a top-level navigation, so no page script can read
     * where the redirect goes); without it the IdP asks the user to confirm.
     */
    async logoutUrl(
      sid: string,
      tg: OidcSessionView | undefined,
      options: { hint: boolean },
    ): Promise<string | undefined> {
      const config = await idp.configuration().catch(() => undefined);
      if (!config?.serverMetadata().end_session_endpoint) return undefined;
      let idToken: string | undefined;
      try {
        idToken =
          options.hint && tg?.oidc?.idToken ? deps.cipher.decrypt(tg.oidc.idToken, sealedAs.idToken(sid)) : undefined;
      } catch {
        idToken = undefined;
      }
      const back = new URL(idp.settings.postLoginPath, new URL(idp.settings.redirectUri).origin).href;
      return client.buildEndSessionUrl(config, {
        post_logout_redirect_uri: back,
        client_id: idp.settings.clientId,
        ...(idToken && { id_token_hint: idToken }),
      }).href;
    },

    /**
     * Back-channel logout: the sessions a logout token names (its IdP session, or every session of its
     * subject), each with what removes its index entry once the lifecycle has ended it.
     */
    async sessionsOf(subject: LogoutSubject): Promise<Array<{ sid: string; unindex(): Promise<void> }>> {
      const keys = subject.sid
        ? indexKeys(idp.settings.issuer, '', subject.sid).slice(1)
        : indexKeys(idp.settings.issuer, subject.sub ?? '', undefined);
      const found: Array<{ sid: string; unindex(): Promise<void> }> = [];
      for (const key of keys)
        for (const sid of await deps.stores.sessionIndex.members(key))
          found.push({ sid, unindex: () => deps.stores.sessionIndex.remove([key], sid) });
      return found;
    },
  };
}

export type OidcSessions = ReturnType<typeof createOidcSessions>;
