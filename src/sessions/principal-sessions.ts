import type { SessionStore } from '../store/session-store.js';
import type { CredentialSessionEntry, CredentialSessions, SessionRemainingMs, TombstoneStore } from '../store/types.js';
import type { EndedBy } from './lifecycle.js';
import { kindOf, type LoginKind, type StoredSession } from './session-data.js';
import { decodeInfo, type SessionInfo } from './session-info.js';
import type { EndReason } from './strategy.js';

/** One live session of a principal, as GET /auth/sessions and the admin listing show it (plus its id, kept inside). */
export interface ListedSession {
  /** Opaque handle: a keyed hash of the session id (never the id, nothing that becomes a cookie). */
  id: string;
  sid: string;
  login: LoginKind;
  graph: string | null;
  createdAt: number;
  /** Epoch ms of the last request that touched the session, to within the touch window (see `lastSeenAt`). */
  lastSeenAt: number;
  client: string | null;
  address: string | null;
}

/** What the listing routes answer of a session (GET /auth/sessions, POST /admin/sessions/list): never its id. */
export function listedView(s: ListedSession) {
  return {
    id: s.id,
    login: s.login,
    graph: s.graph,
    createdAt: new Date(s.createdAt).toISOString(),
    lastSeenAt: new Date(s.lastSeenAt).toISOString(),
    client: s.client,
    address: s.address,
  };
}

export interface PrincipalSessionsDeps {
  credentialSessions: CredentialSessions;
  sessionRemainingMs: SessionRemainingMs;
  sessionStore: SessionStore;
  tombstones: TombstoneStore;
  /** The lifecycle's end: tombstone, upstream, caches on every instance, audit. */
  end(sid: string, reason: EndReason, tg: undefined, by: EndedBy): Promise<boolean>;
  /** The opaque handle of a session id. */
  handle(sid: string): string;
  /** Live sessions one principal may hold (SESSIONS_PER_CREDENTIAL): the most a listing answers. */
  cap: number;
  idleTimeoutSec: number;
  absoluteTimeoutSec: number;
  now: () => number;
}

/** What a DELETE of one handle found: ended, the caller's own session (the route logs it out), or none of theirs. */
export type EndOne = 'ended' | 'current' | 'none';

/**
 * The sessions of one principal (the credential id a session counts under: a TigerGraph user, an IdP
 * subject, a secret), listed and ended. Everything comes from the per-credential record the session cap
 * keeps (one key pair under the principal's hash tag), so a listing costs one script plus one presence check
 * per id on record: O(the principal's sessions), at most the cap plus the record's ceiling. Every end is the
 * lifecycle's.
 */
export interface PrincipalSessions {
  /** The principal's live sessions, newest first, at most the cap. */
  list(principal: string): Promise<ListedSession[]>;
  /** Ends the principal's session with handle `id` (never another principal's: their ids are not searched). */
  endOne(principal: string, id: string, by: EndedBy, current?: string): Promise<EndOne>;
  /**
   * Ends every session of the principal but `except`, and bars its logins still in flight (on record, not yet
   * saved): "sign out everywhere" and the operator's switch cannot be outrun by a login. The number ended.
   */
  endAll(principal: string, reason: 'ended' | 'operator', by: EndedBy, except?: string): Promise<number>;
}

/** Ends run this many at a time: each may call TigerGraph (its token deleted) and the IdP. */
const ENDS_AT_ONCE = 8;

export function principalSessions(deps: PrincipalSessionsDeps): PrincipalSessions {
  const idleMs = deps.idleTimeoutSec * 1000;
  const absoluteMs = deps.absoluteTimeoutSec * 1000;
  const tombstoneMs = absoluteMs;

  /**
   * Every touch sets the record's TTL back to the idle timeout, so what is left of it says when the session
   * was last touched: no write of its own, nothing on a relayed request. Granularity: the touch window (a
   * touch within 1 % of the idle timeout, at most 60 s, of the last one is skipped) plus a second.
   */
  const lastSeenAt = (createdAt: number, remainingMs: number, now: number): number =>
    Math.min(now, Math.max(createdAt, now - (idleMs - remainingMs)));

  /** What a session without listing text (logged in before this version) shows: read from its record. */
  async function infoOf(entry: CredentialSessionEntry): Promise<SessionInfo | null> {
    const info = decodeInfo(entry.info);
    if (info !== null) return info;
    const tg = ((await deps.sessionStore.get(entry.sid)) as StoredSession | null)?.tg;
    return tg ? { login: kindOf(tg), graph: tg.graph } : null;
  }

  async function live(principal: string): Promise<Array<ListedSession & { pending: boolean }>> {
    const entries = await deps.credentialSessions.list(principal);
    const now = deps.now();
    const found = await Promise.all(
      entries.map(async (entry) => {
        const remaining = await deps.sessionRemainingMs(entry.sid);
        const info = decodeInfo(entry.info);
        // A login in flight (on record, no record yet): not listed, but "end all" bars it.
        if (remaining === null) return info?.pending === true ? { entry, info, remaining: null } : null;
        if (entry.at + absoluteMs <= now) return null;
        return { entry, info: await infoOf(entry), remaining };
      }),
    );
    const out: Array<ListedSession & { pending: boolean }> = [];
    for (const f of found) {
      if (f === null || f.info === null) continue;
      const { entry, info, remaining } = f;
      out.push({
        id: deps.handle(entry.sid),
        sid: entry.sid,
        login: info.login,
        graph: info.graph,
        createdAt: entry.at,
        lastSeenAt: remaining === null ? entry.at : lastSeenAt(entry.at, remaining, now),
        client: info.client ?? null,
        address: info.address ?? null,
        pending: remaining === null,
      });
    }
    return out.reverse();
  }

  async function inBatches<T>(items: T[], work: (item: T) => Promise<boolean>): Promise<number> {
    let done = 0;
    let failure: { reason: unknown } | undefined;
    for (let i = 0; i < items.length; i += ENDS_AT_ONCE) {
      const results = await Promise.allSettled(items.slice(i, i + ENDS_AT_ONCE).map(work));
      for (const r of results) {
        if (r.status === 'fulfilled') done += r.value ? 1 : 0;
        else failure ??= { reason: r.reason };
      }
    }
    // Every end was tried; the first failure (a store outage: 503) is what the caller answers.
    if (failure !== undefined) throw failure.reason;
    return done;
  }

  return {
    async list(principal) {
      const sessions = (await live(principal)).filter((s) => !s.pending).slice(0, deps.cap);
      return sessions.map(({ pending: _pending, ...session }) => session);
    },
    async endOne(principal, id, by, current) {
      const match = (await live(principal)).find((s) => !s.pending && s.id === id);
      if (match === undefined) return 'none';
      if (match.sid === current) return 'current';
      return (await deps.end(match.sid, 'ended', undefined, by)) ? 'ended' : 'none';
    },
    async endAll(principal, reason, by, except) {
      const targets = (await live(principal)).filter((s) => s.sid !== except);
      const ended = await inBatches(targets, async (s) => {
        if (await deps.end(s.sid, reason, undefined, by)) return true;
        // No record: a login in flight (or one just gone). Barred, so it cannot come to life after the switch.
        await deps.tombstones.mark(s.sid, tombstoneMs, reason);
        await deps.credentialSessions.remove(principal, [s.sid]);
        return false;
      });
      return ended;
    },
  };
}
