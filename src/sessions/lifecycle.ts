import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { Audit } from '../observability/audit.js';
import type { AuditPrincipal } from '../observability/audit-events.js';
import { sealedAs } from '../crypto/crypto.js';
import type { SessionStore } from '../store/session-store.js';
import type { Cipher, CredentialSessions, SessionRemainingMs, TokenStore, TombstoneStore } from '../store/types.js';
import type { SessionEnd, SessionEnds } from '../tokens/session-ends.js';
import type { TokenBroker } from '../tokens/token-broker.js';
import {
  clearCredential,
  credentialAs,
  credentialOfLogin,
  kindOf,
  type SessionCredential,
  type EndReason,
  type KindStrategy,
  type Login,
  type LoginKind,
} from './strategy.js';
import { dropOf } from './kinds/password.js';
import { sessionCap } from './session-cap.js';
import type { SecretMasks } from './secret-masks.js';
import type { StoredSession, TgSession } from './session-data.js';

/** The request's session, as login needs it (http/session/request-session.ts is one): no framework here. */
export interface SessionWriter {
  /** The request's current session (its cookie's), ended before a login replaces it; null when none. */
  current(): Promise<{ sid: string; tg: TgSession } | null>;
  /** Removes the request's current record (if any) and returns a fresh id. */
  regenerate(): Promise<string>;
  /** Stores the record and sets the cookie that carries it: the last step of a login. */
  save(sid: string, tg: TgSession): Promise<void>;
}

/** Who ended a session, when not the session itself or a timeout: another of the person's sessions, or an operator. */
export type EndedBy = { session: string } | { operator: string };

export interface SessionLifecycleDeps {
  tokens: TokenStore;
  tombstones: TombstoneStore;
  sessionStore: SessionStore;
  credentialSessions: CredentialSessions;
  sessionRemainingMs: SessionRemainingMs;
  /** Where each session is recorded at login, so the sweeper ends it however it ends. */
  sessionEnds: SessionEnds;
  /**
   * One strategy per login kind (src/sessions/kinds/), and `mapped` for single sign-on sessions a
   * credential-map rule admitted (an `oidc` login with a rule).
   */
  strategies: Record<LoginKind, KindStrategy> & { mapped?: KindStrategy };
  cipher: Cipher;
  /**
   * Where secret logins record their masked form, for the operator's switch by alias where TigerGraph shows
   * secrets only masked (ADMIN_ROUTES on a version without the REST secrets API); absent otherwise.
   */
  secretMasks?: SecretMasks;
  /** Live sessions one credential may hold (SESSIONS_PER_CREDENTIAL); a login beyond ends the oldest. */
  sessionsPerCredential: number;
  idleTimeoutSec: number;
  absoluteTimeoutSec: number;
  now: () => number;
  metrics: Metrics;
  logger: Logger;
  /**
   * The audit trail: every end is a `session.ended` event with its reason (and a logout a `logout` event),
   * the session named as the access line names it (`describe`; `sessionHash` when only the id is known).
   */
  audit?: {
    audit: Audit;
    describe: (sid: string, tg: TgSession) => AuditPrincipal;
    sessionHash: (sid: string) => string;
  };
}

/**
 * How every session starts and ends, whatever its login kind and whatever ends it. The routes, the /api
 * lane, the session-end sweeper and back-channel logout all come here; what differs by kind (which broker,
 * what is revoked where, what GET /auth/session shows) is the kind's strategy, decided once (`kindOf`).
 */
export interface SessionLifecycle {
  /** The strategy of a stored session's kind. */
  strategyOf(tg: TgSession): KindStrategy;
  /**
   * Makes a session of a verified login: the previous session of the request (if any) ended, a fresh id,
   * then the session-end entry, the token state, the kind's index, the credential's session list, and the
   * record and cookie last, so a session that can be read is a complete one. A step that fails undoes the
   * others (what an outage keeps it from undoing is left to the sweepers) and rejects.
   */
  establish(login: Login, writer: SessionWriter): Promise<string>;
  /**
   * Ends a session everywhere: tombstone first (requests in flight cannot bring it back; its value is the
   * reason, so the browser's next request learns it), then what it held upstream (the kind's strategy), its
   * session-end entry, its credential list entry and its record. `tg`: the session as the caller loaded it;
   * without it, it is read from the store (false when it was gone). `by`: who asked, for the audit trail (the
   * asking session's keyed hash, or an operator's name).
   */
  end(sid: string, reason: EndReason, tg?: TgSession, by?: EndedBy): Promise<boolean>;
  /** The sweeper's part for a session found over: what it held upstream ended (rejects to be retried). */
  sweep(entry: SessionEnd, credential: string): Promise<boolean>;
  /** What GET /auth/session shows of a session's kind. */
  view(tg: TgSession): { login: LoginKind } & Record<string, string | readonly string[]>;
}

export function createSessionLifecycle(deps: SessionLifecycleDeps): SessionLifecycle {
  const { logger, strategies } = deps;
  const tombstoneMs = deps.absoluteTimeoutSec * 1000;
  /** A credential-map session without the map configured any more gets a strategy with no broker: it ends. */
  const mapped = (): KindStrategy => strategies.mapped ?? { ...strategies.oidc, broker: undefined };
  const strategyOf = (tg: TgSession): KindStrategy => (tg.oidc?.rule !== undefined ? mapped() : strategies[kindOf(tg)]);
  const strategyFor = (login: Login): KindStrategy =>
    login.kind === 'oidc' && login.rule !== undefined ? mapped() : strategies[login.kind];
  const quietly =
    (what: string) =>
    (err: unknown): void =>
      logger.warn({ err: { code: (err as { code?: unknown }).code } }, what);

  /** The session-end entry of a session: what the sweeper needs once the record may be gone. */
  function entryOf(sid: string, tg: TgSession): SessionEnd {
    const kind = kindOf(tg);
    return {
      sid,
      endsBy: tg.createdAt + tombstoneMs,
      sealedCredential: tg.secret,
      ...(kind === 'oidc' && { kind }),
      ...(kind === 'password' && { kind, drop: dropOf(tg) }),
    };
  }

  async function end(sid: string, reason: EndReason, known?: TgSession, by?: EndedBy): Promise<boolean> {
    const tg = known ?? ((await deps.sessionStore.get(sid)) as StoredSession | null)?.tg;
    if (!tg) return false;
    if (deps.audit) {
      const who = deps.audit.describe(sid, tg);
      if (reason === 'logout') deps.audit.audit.emit({ event: 'logout', ...who });
      deps.audit.audit.emit({
        event: 'session.ended',
        reason: reason === 'swept' ? 'expired' : reason,
        ...who,
        ...(by && { by: 'session' in by ? { session: by.session } : { operator: by.operator } }),
      });
    }
    const entry = entryOf(sid, tg);
    await deps.tombstones.mark(sid, tombstoneMs, reason);
    // Counted once the tombstone holds (the session is over then); a timeout is the sweeper's, not counted here.
    if (reason !== 'swept') deps.metrics.sessionsEnded.inc({ reason });
    // Not the request's own session: if anything after the tombstone fails (a crash, the data server),
    // the sweeper on any instance finishes the job.
    if (!known) await deps.sessionEnds.watch(entry, deps.now());
    let credential: SessionCredential | undefined;
    try {
      credential = credentialAs(kindOf(tg), deps.cipher.decrypt(tg.secret, sealedAs.sessionSecret(sid)));
    } catch {
      credential = undefined;
    }
    if (credential === undefined) await deps.tokens.delete(sid).catch(() => undefined);
    else if (!(await revokeOrHandOver(sid, entry, credential, reason, tg, known !== undefined))) {
      // The sweeper retries what could not be ended upstream: its entry stays, due now.
      if (tg.cred !== undefined) await deps.credentialSessions.remove(tg.cred, [sid]).catch(() => undefined);
      await deps.sessionStore.destroy(sid);
      return true;
    }
    // Left behind, the entry costs the sweeper one look once the session is gone, and nothing else.
    await deps.sessionEnds.forget(entry).catch(quietly('could not clear a session-end entry'));
    // Best effort: an id left on the list is found dead and pruned at the credential's next check.
    if (tg.cred !== undefined) await deps.credentialSessions.remove(tg.cred, [sid]).catch(() => undefined);
    await deps.sessionStore.destroy(sid);
    return true;
  }

  /**
   * What a session held upstream, ended with the sweeper's own retry semantics (a failure keeps the token
   * state): false when that failed, after its session-end entry was made due now, so the session-end sweeper
   * on any instance deletes the token (and drops a password login's secret) once the data server answers.
   * `own`: the caller's session, whose entry `end` did not watch yet.
   */
  async function revokeOrHandOver(
    sid: string,
    entry: SessionEnd,
    credential: SessionCredential,
    reason: EndReason,
    tg: TgSession,
    own: boolean,
  ): Promise<boolean> {
    try {
      await strategyOf(tg).revoke({ sid, entry, credential, reason, tg, retry: true });
      return true;
    } catch (err) {
      logger.warn(
        { err: { code: (err as { code?: unknown }).code }, reason },
        'session ended; what it held upstream could not be ended now, the session-end sweeper retries it',
      );
      if (own) await deps.sessionEnds.watch(entry, deps.now()).catch(quietly('could not hand an end to the sweeper'));
      return false;
    }
  }

  const cap = sessionCap({
    sessions: deps.credentialSessions,
    cap: deps.sessionsPerCredential,
    ttlMs: tombstoneMs,
    remainingMs: deps.sessionRemainingMs,
    // A login still in flight has no record yet: barred all the same, its session is over once saved.
    evict: async (sid) =>
      (await end(sid, 'evicted')) || (await deps.tombstones.mark(sid, tombstoneMs, 'evicted'), false),
    metrics: deps.metrics,
    logger,
  });

  /** Undoes a login that failed part way. Never throws. */
  async function abandon(sid: string, tg: TgSession, login: Login): Promise<void> {
    const strategy = strategyFor(login);
    await strategy.abandon(sid, login).catch(quietly('failed login: could not undo it upstream'));
    await deps.tokens.delete(sid).catch(quietly('failed login: could not delete its token state'));
    await deps.sessionStore.destroy(sid).catch(quietly('failed login: could not delete its record'));
    await deps.credentialSessions.remove(login.cred, [sid]).catch(quietly('failed login: still on its list'));
    await deps.sessionEnds.forget(entryOf(sid, tg)).catch(quietly('failed login: its session-end entry stays'));
  }

  async function establish(login: Login, writer: SessionWriter) {
    const strategy = strategyFor(login);
    const broker: TokenBroker | undefined = strategy.broker;
    const createdAt = login.at;
    let sid: string;
    try {
      if (broker === undefined) throw new Error(`no broker for ${login.kind} logins`);
      const previous = await writer.current();
      if (previous) await end(previous.sid, 'replaced', previous.tg);
      sid = await writer.regenerate();
    } catch (err) {
      // No session of this login exists yet: only what it made upstream to undo.
      await strategy.abandon(undefined, login).catch(quietly('failed login: could not undo it upstream'));
      throw err;
    }
    const tg: TgSession = {
      // Sealed for this id: copied into another session's record, it does not open.
      secret: deps.cipher.encrypt(clearCredential(credentialOfLogin(login)), sealedAs.sessionSecret(sid)),
      graph: login.graph,
      createdAt,
      cred: login.cred,
      ...strategy.fields(sid, login),
    };
    try {
      // The entry first: whatever fails after it is found by the sweeper.
      await deps.sessionEnds.watch(entryOf(sid, tg), deps.now() + deps.idleTimeoutSec * 1000);
      await broker.adopt(sid, login.grant, tombstoneMs);
      await strategy.index(sid, tg);
      // Counted before it exists, so no saved session is ever missing from its credential's count.
      const capped = await cap.admit(login.cred, sid, createdAt, {
        login: login.kind,
        graph: login.graph,
        ...(login.from?.client !== undefined && { client: login.from.client }),
        ...(login.from?.address !== undefined && { address: login.from.address }),
      });
      if (login.kind === 'secret') await deps.secretMasks?.note(login.secret, login.cred, createdAt);
      await writer.save(sid, tg);
      await capped.enforce();
      return sid;
    } catch (err) {
      await abandon(sid, tg, login);
      throw err;
    }
  }

  return {
    strategyOf,
    establish,
    end,
    sweep(entry, clear) {
      // Found over without anyone ending it: idle or absolute timeout (retried on failure: at least once).
      deps.audit?.audit.emit({ event: 'session.ended', reason: 'expired', session: deps.audit.sessionHash(entry.sid) });
      const kind = entry.kind ?? 'secret';
      const credential = credentialAs(kind, clear);
      return strategies[kind].revoke({ sid: entry.sid, entry, credential, reason: 'swept', retry: true });
    },
    view: (tg) => ({ login: kindOf(tg), ...strategyOf(tg).view(tg) }),
  };
}
