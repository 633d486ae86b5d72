import * as client from 'openid-client';
import type { Logger } from '../observability/logger.js';
import { sealedAs } from '../store/crypto.js';
import type { OidcStores } from '../store/oidc-stores.js';
import type { SessionStore } from '../store/session-store.js';
import type { Cipher, TokenStore, TombstoneStore } from '../store/types.js';
import type { TokenGrant } from '../tigergraph/types.js';
import type { TokenBroker } from '../tokens/token-broker.js';
import type { Idp } from './idp.js';
import { revokeAtIdp } from './idp-token-api.js';
import { indexKeys } from './login-flow.js';
import type { LogoutSubject } from './logout-token.js';

/** The OIDC part of a stored session (what logout needs of it). */
export interface OidcSessionView {
  secret: string;
  createdAt: number;
  oidc?: { sub: string; idpSid?: string; idToken?: string };
}

/**
 * How OIDC sessions end: locally always (tombstone, token state), at the IdP where it offers revocation
 * (access and refresh token), and from the IdP by back-channel logout, on whichever instance it lands.
 */
export function createOidcSessions(deps: {
  idp: Idp;
  broker: TokenBroker;
  tokens: TokenStore;
  tombstones: TombstoneStore;
  sessionStore: SessionStore;
  stores: OidcStores;
  cipher: Cipher;
  absoluteTimeoutSec: number;
  logger: Logger;
}) {
  const { idp, logger } = deps;
  const tombstoneMs = deps.absoluteTimeoutSec * 1000;
  const keysOf = (tg: OidcSessionView) => (tg.oidc ? indexKeys(idp.settings.issuer, tg.oidc.sub, tg.oidc.idpSid) : []);

  return {
    /** Back-channel index entries for a fresh session (they expire with the longest session). */
    index: (sid: string, tg: OidcSessionView) => deps.stores.sessionIndex.add(keysOf(tg), sid, tombstoneMs),

    /** Logout of this session: nothing here throws for the IdP's sake; the local end always happens. */
    async end(sid: string, tg: OidcSessionView): Promise<void> {
      await deps.tombstones.mark(sid, tombstoneMs);
      const refresh = deps.cipher.decrypt(tg.secret, sealedAs.sessionSecret(sid));
      const state = await deps.tokens.get(sid).catch(() => null);
      try {
        // Revokes the access token (when still live) and deletes the state, under the refresh lease.
        await deps.broker.revoke(sid, refresh);
      } catch (err) {
        logger.warn({ err: { code: (err as { code?: string }).code } }, 'access token revocation at logout failed');
        await deps.tokens.delete(sid).catch(() => undefined);
      }
      await revokeAtIdp(idp, state?.renewWith ?? refresh, 'refresh_token').catch((err: unknown) =>
        logger.warn(
          { err: { code: (err as { code?: string }).code, name: (err as Error).name } },
          'refresh token revocation at logout failed',
        ),
      );
      await deps.stores.sessionIndex.remove(keysOf(tg), sid).catch(() => undefined);
    },

    /** A login that failed part way: its access token deleted, its refresh token revoked at the IdP. */
    async abandon(sid: string, tg: OidcSessionView, grant: TokenGrant): Promise<void> {
      const refresh = deps.cipher.decrypt(tg.secret, sealedAs.sessionSecret(sid));
      const results = await Promise.allSettled([
        deps.broker.discard(refresh, grant),
        refresh === '' ? Promise.resolve(false) : revokeAtIdp(idp, refresh, 'refresh_token'),
        deps.stores.sessionIndex.remove(keysOf(tg), sid),
      ]);
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    },

    /**
     * The session-end sweeper's part for an OIDC session that ended without a logout (idle or absolute
     * timeout): revoke its tokens at the IdP and drop the token state. True when something was revoked.
     */
    async revokeEnded(sid: string, refresh: string): Promise<boolean> {
      const state = await deps.tokens.get(sid);
      // The refresh token first: it is the long-lived one. An outage rejects, and the sweeper retries.
      const refreshRevoked = await revokeAtIdp(idp, state?.renewWith ?? refresh, 'refresh_token');
      const accessRevoked = await deps.broker.revoke(sid, refresh, { keepOnFailure: true });
      return accessRevoked || refreshRevoked;
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

    /** Back-channel logout: ends every session of that IdP session or subject; how many it found. */
    async endFromIdp(subject: LogoutSubject): Promise<number> {
      const keys = subject.sid
        ? indexKeys(idp.settings.issuer, '', subject.sid).slice(1)
        : indexKeys(idp.settings.issuer, subject.sub ?? '', undefined);
      let ended = 0;
      for (const key of keys) {
        for (const sid of await deps.stores.sessionIndex.members(key)) {
          await deps.tombstones.mark(sid, tombstoneMs);
          await deps.sessionStore.destroy(sid);
          await deps.tokens.delete(sid);
          await deps.stores.sessionIndex.remove([key], sid);
          ended++;
        }
      }
      return ended;
    },
  };
}

export type OidcSessions = ReturnType<typeof createOidcSessions>;
