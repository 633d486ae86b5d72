import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { CredentialSessions, SessionRemainingMs } from '../store/types.js';
import type { LoginKind } from './strategy.js';

export interface SessionCapDeps {
  sessions: CredentialSessions;
  /** Live sessions one credential may have (SESSIONS_PER_CREDENTIAL). */
  cap: number;
  /** How long a credential's record outlives its newest login: the absolute timeout, the longest a session lives. */
  ttlMs: number;
  /** Whether a session still lives (record present, no tombstone). */
  remainingMs: SessionRemainingMs;
  /** Ends another session of the credential, on whichever instance it was made; false when it was gone. */
  evict(sid: string): Promise<boolean>;
  metrics: Metrics;
  logger: Logger;
}

export interface SessionCap {
  /**
   * Counts a fresh session under its credential (before the session is saved, so a session that exists is
   * always counted) and returns what ends the credential's oldest live sessions beyond the cap, to run once
   * the new session is saved.
   */
  admit(credential: string, sid: string, at: number): Promise<{ enforce(kind: LoginKind): Promise<void> }>;
}

/** However the record is kept, it never holds more than this many ids above the cap. */
const CEILING_ABOVE_CAP = 64;

/**
 * One credential (a secret, a TigerGraph user, an IdP subject) holds at most `cap` live sessions across all
 * instances: a login beyond it ends the credential's oldest live sessions through the session lifecycle's
 * `end` (tombstone, token deleted upstream, password-login secret dropped, record deleted). Ids whose sessions
 * ended otherwise (idle timeout, logout elsewhere) are only pruned, never counted.
 */
export function sessionCap(deps: SessionCapDeps): SessionCap {
  const { sessions, cap, metrics, logger } = deps;
  const limits = { ttlMs: deps.ttlMs, cap, ceiling: cap + CEILING_ABOVE_CAP };
  const none = { enforce: async () => undefined };

  async function enforce(credential: string, sid: string, onRecord: string[], kind: LoginKind): Promise<void> {
    const others = onRecord.filter((id) => id !== sid);
    const alive = await Promise.all(others.map(async (id) => (await deps.remainingMs(id)) !== null));
    const gone = others.filter((_, i) => !alive[i]);
    const live = others.filter((_, i) => alive[i]);
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
        logger.warn(
          { err: { code: (err as { code?: unknown }).code } },
          'could not end a session over the per-credential cap',
        );
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
    async admit(credential, sid, at) {
      const onRecord = await sessions.add(credential, sid, at, limits);
      if (onRecord.length === 0) return none;
      return {
        // Never fails the login it follows (that session is saved): what is left over is tried again next time.
        enforce: (kind) =>
          enforce(credential, sid, onRecord, kind).catch((err: unknown) => {
            logger.warn(
              { err: { code: (err as { code?: unknown }).code } },
              'could not enforce the per-credential session cap',
            );
          }),
      };
    },
  };
}
