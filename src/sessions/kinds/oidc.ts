import type { Logger } from '../../observability/logger.js';
import type { OidcSessions } from '../../oidc/oidc-sessions.js';
import { sealedAs } from '../../crypto/crypto.js';
import type { Cipher, TokenStore } from '../../store/types.js';
import { clearCredential, type KindStrategy } from '../strategy.js';

/**
 * A single sign-on login: the session's credential is the IdP refresh token, its token the IdP access
 * token, kept by the OIDC broker; neither ever reaches TigerGraph's token endpoint. The IdP calls are
 * oidc/oidc-sessions.ts's (loaded only when SSO is on). Without SSO configured any more (settings changed
 * since the login) such a session has nothing to renew with and nothing to revoke with: only its state goes.
 */
export function oidcStrategy(deps: {
  sessions: OidcSessions | undefined;
  tokens: TokenStore;
  cipher: Cipher;
  logger: Logger;
}): KindStrategy {
  const { sessions } = deps;
  return {
    kind: 'oidc',
    broker: sessions?.broker,
    refusalEnds: true,
    fields(sid, login) {
      if (login.kind !== 'oidc') return {};
      return {
        oidc: {
          sub: login.sub,
          ...(login.name !== undefined && { name: login.name }),
          ...(login.idpSid !== undefined && { idpSid: login.idpSid }),
          ...(login.idToken !== undefined && { idToken: deps.cipher.encrypt(login.idToken, sealedAs.idToken(sid)) }),
          ...(login.rule !== undefined && { rule: login.rule }),
        },
      };
    },
    index: async (sid, tg) => sessions?.index(sid, tg),
    async revoke(ending) {
      if (!sessions) {
        await deps.tokens.delete(ending.sid).catch(() => undefined);
        return false;
      }
      // The IdP ended the session itself, or refused its refresh token: nothing left to revoke there.
      const atIdp = ending.reason !== 'backchannel' && ending.reason !== 'idp_refused';
      const revoked = await sessions.revoke(ending.sid, clearCredential(ending.credential), {
        retry: ending.retry,
        atIdp,
      });
      if (ending.tg) await sessions.unindex(ending.sid, ending.tg).catch(() => undefined);
      return revoked;
    },
    async abandon(sid, login) {
      if (login.kind !== 'oidc' || !sessions) return;
      await sessions.abandon(sid, login);
    },
    view: (tg): Record<string, string | readonly string[]> =>
      tg.oidc ? { sub: tg.oidc.sub, ...(tg.oidc.name !== undefined && { name: tg.oidc.name }) } : {},
  };
}
