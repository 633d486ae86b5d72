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
import type { TokenGrant } from '../../tigergraph/types.js';
import type { StoredSession, TgSession } from '../session/session-data.js';

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
}

/** How sessions end, whichever kind of login made them and whatever ends them. */
export interface SessionEnding {
  /** What login writes to the session-end index for a session, so the sweeper can end it. */
  endOf(sid: string, tg: TgSession): SessionEnd;
  /** Ends a session everywhere (logout, a login replacing it): its stored record is the caller's to delete. */
  end(sid: string, tg: TgSession): Promise<void>;
  /**
   * Ends a session that is not the request's own (the per-credential cap): as `end`, and its record is
   * deleted too. Its session-end entry is made due at once first, so if anything after the tombstone fails
   * (a crash, the data server), the sweeper on any instance deletes its token. False when it was gone already.
   */
  evict(sid: string): Promise<boolean>;
  /**
   * Undoes a login that failed part way, before its cookie was set: the token it minted deleted upstream
   * (stored or not), its session-end entry, credential list entry, record and password-login secret gone.
   * Best effort, never throws: what a store outage keeps it from undoing is left to the sweepers.
   */
  abandon(sid: string, tg: TgSession, grant: TokenGrant): Promise<void>;
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
    ...(!tg.oidc && tg.secretAlias !== undefined && { kind: 'password' as const, drop: dropOf(tg) }),
  });

  async function end(sid: string, tg: TgSession): Promise<void> {
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
    await end(sid, tg);
    await deps.sessionStore.destroy(sid);
    return true;
  }

  async function abandon(sid: string, tg: TgSession, grant: TokenGrant): Promise<void> {
    const quietly =
      (what: string) =>
      (err: unknown): void =>
        deps.logger.warn({ err: { code: (err as { code?: unknown }).code } }, `failed login: ${what}`);
    if (tg.oidc) {
      if (deps.oidc) await deps.oidc.abandon(sid, tg, grant).catch(quietly('could not revoke its IdP tokens'));
    } else {
      let secret: string | undefined;
      try {
        secret = deps.cipher.decrypt(tg.secret, sealedAs.sessionSecret(sid));
      } catch {
        secret = undefined;
      }
      if (secret !== undefined)
        await deps.broker
          .discard(secret, grant)
          .catch(quietly('could not delete its token upstream; it lives until it expires'));
    }
    await deps.tokens.delete(sid).catch(quietly('could not delete its token state'));
    await deps.sessionStore.destroy(sid).catch(quietly('could not delete its record'));
    if (tg.cred !== undefined)
      await deps.credentialSessions.remove(tg.cred, [sid]).catch(quietly('could not leave its credential list'));
    await deps.sessionEnds.forget(endOf(sid, tg)).catch(quietly('could not clear its session-end entry'));
    // Never throws; a failed drop is left due at once for the secret sweeper.
    if (tg.secretAlias && deps.passwords) await deps.passwords.release(dropOf(tg));
  }

  return { endOf, end, evict, abandon };
}
