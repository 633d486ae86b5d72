import type { AppError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import type { SessionSecrets } from '../../admin/session-secrets.js';
import type { OidcSessions } from '../../oidc/oidc-sessions.js';
import { sealedAs } from '../../store/crypto.js';
import type { SecretDrop } from '../../store/secret-drops.js';
import type { SessionStore } from '../../store/session-store.js';
import type { Cipher, CredentialSessions, TokenStore, TombstoneStore } from '../../store/types.js';
import type { SessionEnd, SessionEnds } from '../../tokens/session-ends.js';
import type { TokenBroker } from '../../tokens/token-broker.js';
import type { StoredSession, TgSession } from '../session/session-data.js';
import type { DescribePrincipal } from '../session/principal.js';
import type { Audit } from '../../observability/audit.js';
import type { SessionEndReason } from '../../observability/audit-events.js';

export interface SessionEndingDeps {
  broker: TokenBroker;
  tokens: TokenStore;
  tombstones: TombstoneStore;
  sessionStore: SessionStore;
  /** The per-credential session lists (session-cap.ts): an ended session leaves its credential's list. */
  credentialSessions: CredentialSessions;
  cipher: Cipher;
  logger: Logger;
  absoluteTimeoutSec: number;
  /** Where login records each session, so its token is deleted however the session ends. */
  sessionEnds: SessionEnds;
  /** Set when PASSWORD_LOGIN is on: drops the per-session secrets. */
  passwords?: SessionSecrets;
  /** Set when OIDC is configured: how OIDC sessions end (their credentials never reach `broker`). */
  oidc?: OidcSessions;
  now: () => number;
  /** The audit trail: `session.ended` (and `logout`) for every end this module makes. */
  audit?: Audit;
  /** Names a session in audit events as in access lines (session/principal.ts). */
  describe?: DescribePrincipal;
}

/** How sessions end, whichever kind of login made them and whatever ends them. */
export interface SessionEnding {
  /** What login writes to the session-end index for a session, so the sweeper can end it. */
  endOf(sid: string, tg: TgSession): SessionEnd;
  /**
   * Ends a session everywhere (logout, a login replacing it): its stored record is the caller's to delete.
   * `reason` goes to the audit trail (default logout).
   */
  end(sid: string, tg: TgSession, reason?: 'logout' | 'replaced'): Promise<void>;
  /**
   * Ends a session that is not the request's own (the per-credential cap): as `end`, and its record is
   * deleted too. Its session-end entry is made due at once first, so if anything after the tombstone fails
   * (a crash, the data server), the sweeper on any instance deletes its token. False when it was gone already.
   */
  evict(sid: string): Promise<boolean>;
}

/** The drop entry login recorded for a service-created secret. */
const dropOf = (tg: TgSession): SecretDrop => ({
  alias: tg.secretAlias ?? '',
  graph: tg.graph,
  sealedSecret: tg.secretDrop ?? tg.secret,
});

export function sessionEnding(deps: SessionEndingDeps): SessionEnding {
  const tombstoneMs = deps.absoluteTimeoutSec * 1000;
  const endOf = (sid: string, tg: TgSession): SessionEnd => ({
    sid,
    endsBy: tg.createdAt + tombstoneMs,
    sealedSecret: tg.secret,
    ...(tg.oidc && { kind: 'oidc' as const }),
  });

  /** The one place session ends reach the audit trail (the sweeper's, which never load the session, aside). */
  function audited(sid: string, tg: TgSession, reason: SessionEndReason): void {
    if (deps.audit === undefined || deps.describe === undefined) return;
    const who = deps.describe(sid, tg);
    if (reason === 'logout') deps.audit.emit({ event: 'logout', ...who });
    deps.audit.emit({ event: 'session.ended', reason, ...who });
  }

  async function end(sid: string, tg: TgSession, reason: 'logout' | 'replaced' | 'evicted' = 'logout'): Promise<void> {
    audited(sid, tg, reason);
    await release(sid, tg);
    // Best effort: an id left on the list is found dead and pruned at the credential's next check.
    if (tg.cred !== undefined) await deps.credentialSessions.remove(tg.cred, [sid]).catch(() => undefined);
  }

  /** What the session holds, gone: tombstone first so in-flight requests cannot bring it back. */
  async function release(sid: string, tg: TgSession): Promise<void> {
    if (tg.oidc) {
      // An OIDC session's credential is an IdP refresh token: it must never reach the TigerGraph broker.
      if (deps.oidc) await deps.oidc.end(sid, tg);
      else await deps.tombstones.mark(sid, tombstoneMs);
      await deps.sessionEnds
        .forget(endOf(sid, tg))
        .catch((err: unknown) => deps.logger.warn({ err }, 'could not clear a session-end entry'));
      return;
    }
    await deps.tombstones.mark(sid, tombstoneMs);
    try {
      await deps.broker.revoke(sid, deps.cipher.decrypt(tg.secret, sealedAs.sessionSecret(sid)));
    } catch (err) {
      // The session ends regardless; a token left upstream expires on its own.
      deps.logger.warn({ err, code: (err as AppError).code }, 'token delete at logout failed');
      await deps.tokens.delete(sid).catch(() => undefined);
    }
    // Left behind, the entry costs the sweeper one look once the session is gone, and nothing else.
    await deps.sessionEnds
      .forget(endOf(sid, tg))
      .catch((err: unknown) => deps.logger.warn({ err }, 'could not clear a session-end entry'));
    // After the token: deleting it needs the secret. release() never throws; a failed drop is swept later.
    if (tg.secretAlias && deps.passwords) await deps.passwords.release(dropOf(tg));
  }

  async function evict(sid: string): Promise<boolean> {
    const tg = ((await deps.sessionStore.get(sid)) as StoredSession | null)?.tg;
    if (!tg) return false;
    await deps.tombstones.mark(sid, tombstoneMs);
    await deps.sessionEnds.watch(endOf(sid, tg), deps.now());
    await end(sid, tg, 'evicted');
    await deps.sessionStore.destroy(sid);
    return true;
  }

  return { endOf, end, evict };
}
