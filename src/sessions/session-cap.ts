import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { CredentialSessionEntry, CredentialSessions, SessionRemainingMs } from '../store/types.js';
import { decodeInfo, encodeInfo, type SessionInfo } from './session-info.js';
import type { LoginKind } from './strategy.js';

export interface SessionCapDeps {
  sessions: CredentialSessions;
  /** Live sessions one credential may have (SESSIONS_PER_CREDENTIAL). */
  cap: number;
  /** How long a credential's record outlives its newest login: the absolute timeout, the longest a session lives. */
  ttlMs: number;
  /** Whether a session still lives (record present, no tombstone). */
  remainingMs: SessionRemainingMs;
  /**
   * Ends another session of the credential, on whichever instance it was made; false when it had no record
   * (then it is barred all the same: a login still in flight saves a session that is over from the start).
   */
  evict(sid: string): Promise<boolean>;
  metrics: Metrics;
  logger: Logger;
}

export interface SessionCap {
  /**
   * Counts a fresh session under its credential (before the session is saved, so a session that exists is
   * always counted; marked pending until then) and returns what, once the new session is saved, marks it
   * saved and ends the credential's oldest live sessions beyond the cap.
   */
  admit(credential: string, sid: string, at: number, info: SessionInfo): Promise<{ enforce(): Promise<void> }>;
}

/** However the record is kept, it never holds more than this many ids above the cap. */
export const CEILING_ABOVE_CAP = 64;

/**
 * One credential (a secret, a TigerGraph user, an IdP subject) holds at most `cap` live sessions across all
 * instances: a login beyond it ends the credential's oldest live sessions through the session lifecycle's
 * `end` (tombstone, token deleted upstream, password-login secret dropped, record deleted). Ids whose sessions
 * ended otherwise (idle timeout, logout elsewhere) are only pruned, never counted.
 *
 * A login is on record before its session is saved. Until its login marks it saved, an id without a record
 * is a login in flight, not a session that ended: it counts as live, and when it is among the oldest beyond
 * the cap it is barred (tombstoned) rather than dropped, so it can never come to life uncounted. Before,
 * concurrent logins on two instances pruned each other's unsaved ids and left cap + 1 live (issue 42, item 3).
 */
export function sessionCap(deps: SessionCapDeps): SessionCap {
  const { sessions, cap, metrics, logger } = deps;
  const limits = { ttlMs: deps.ttlMs, cap, ceiling: cap + CEILING_ABOVE_CAP };
  const warn = (what: string) => (err: unknown) =>
    logger.warn({ err: { code: (err as { code?: unknown }).code } }, what);

  async function enforce(credential: string, sid: string, onRecord: CredentialSessionEntry[], kind: LoginKind) {
    const others = onRecord.filter((e) => e.sid !== sid);
    const alive = await Promise.all(
      others.map(async (e) => (await deps.remainingMs(e.sid)) !== null || decodeInfo(e.info)?.pending === true),
    );
    const gone = others.filter((_, i) => !alive[i]).map((e) => e.sid);
    const live = others.filter((_, i) => alive[i]).map((e) => e.sid);
    // Oldest first (the store answers by login time); the new session is the newest and always stays.
    const over = live.slice(0, Math.max(0, live.length + 1 - cap));
    const settled: string[] = [];
    let ended = 0;
    for (const id of over) {
      try {
        if (await deps.evict(id)) ended++;
        settled.push(id);
      } catch (err) {
        // Its tombstone may not be written: it stays on record, and the next login over the cap tries again.
        warn('could not end a session over the per-credential cap')(err);
      }
    }
    await sessions.remove(credential, [...gone, ...settled]);
    if (ended > 0) {
      metrics.sessionsEvicted.inc({ login: kind }, ended);
      // The credential by its keyed id's first characters: enough to correlate lines, never the secret.
      logger.info(
        { credential: credential.slice(0, 8), login: kind, ended, cap },
        'sessions over the per-credential cap ended',
      );
    }
  }

  return {
    async admit(credential, sid, at, info) {
      const onRecord = await sessions.add(credential, sid, at, limits, encodeInfo({ ...info, pending: true }));
      const saved = encodeInfo(withoutPending(info));
      return {
        // Never fails the login it follows (that session is saved): what is left over is tried again next time.
        enforce: async () => {
          await sessions.update(credential, sid, saved).catch(warn('could not mark a saved session on its list'));
          if (onRecord.length === 0) return;
          await enforce(credential, sid, onRecord, info.login).catch(
            warn('could not enforce the per-credential session cap'),
          );
        },
      };
    },
  };
}

function withoutPending(info: SessionInfo): Omit<SessionInfo, 'pending'> {
  const { pending: _pending, ...rest } = info;
  return rest;
}
