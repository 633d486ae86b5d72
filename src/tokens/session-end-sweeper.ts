import { sealedAs } from '../crypto/crypto.js';
import type { Metrics } from '../observability/metrics.js';
import { claimDecoded, type DueQueue } from '../store/due-queue.js';
import type { Cipher } from '../store/types.js';
import { maskSecret } from '@tigergraph-bff/client';
import { createLeasedSweep, type LeasedSweep, type SweepSchedule } from './leased-sweep.js';
import { decodeSessionEnd, type SessionEnd } from './session-ends.js';

export interface SessionEndSweepResult {
  /** Sessions found over: their token deleted upstream (or already gone) and their entry removed. */
  ended: number;
  /** Sessions still alive: their entry moved to when they may next have ended. */
  alive: number;
  /** Left for a later pass (data server down, store trouble). */
  failed: number;
}

export type SessionEndSweeper = LeasedSweep<SessionEndSweepResult>;

export interface SessionEndSweeperDeps extends SweepSchedule {
  queue: DueQueue;
  /** Time the session blob has left (its idle TTL), or null when it is gone or tombstoned. */
  sessionRemainingMs(sid: string): Promise<number | null>;
  /**
   * Ends what the session held upstream: its token deleted and its state (kept when the delete fails, for
   * the retry), a password login's secret dropped, an OIDC session's tokens revoked at the IdP (its
   * `credential` is then the IdP refresh token). True when a token was deleted.
   */
  revoke(end: SessionEnd, credential: string): Promise<boolean>;
  cipher: Cipher;
  metrics?: Metrics;
}

/**
 * How long token state outlives its session (see TokenBrokerDeps.stateGraceMs): enough passes for the
 * sweeper to read it, retries included, after the session blob and its absolute timeout are gone.
 */
export function tokenStateGraceMs(intervalMs: number): number {
  return Math.max(15 * 60_000, 10 * intervalMs);
}

/** Lease name: a session id is 32 characters, so this can never be one. */
export const SESSION_END_SWEEP_LEASE = 'session-end-sweep';

/**
 * Deletes the tokens of sessions that ended without a logout: idle expiry, absolute timeout, or a session
 * removed by an administrator. The index is not moved on every request (that would cost the hot path a
 * write); instead a due entry whose session is still alive is moved to that session's current idle
 * deadline, so each live session costs one check per idle period.
 */
export function createSessionEndSweeper(deps: SessionEndSweeperDeps): SessionEndSweeper {
  const { queue, logger } = deps;
  const batchSize = deps.batchSize ?? 50;
  const counted = (result: 'ok' | 'error') => deps.metrics?.tokenDeletes.inc({ reason: 'session_end', result });

  async function settle(member: string, end: SessionEnd, result: SessionEndSweepResult): Promise<void> {
    const now = deps.now();
    const remaining = now < end.endsBy ? await deps.sessionRemainingMs(end.sid) : null;
    if (remaining !== null) {
      await queue.reschedule(member, Math.min(now + remaining, end.endsBy));
      result.alive += 1;
      return;
    }
    let credential: string;
    try {
      credential = deps.cipher.decrypt(end.sealedCredential, sealedAs.sessionSecret(end.sid));
    } catch {
      // A retired key: nothing can delete this token any more but its own expiry.
      logger.error(
        { sid: maskSecret(end.sid) },
        'ended session secret cannot be unsealed; its token lives until it expires',
      );
      await queue.remove(member);
      result.ended += 1;
      return;
    }
    if (await deps.revoke(end, credential)) counted('ok');
    await queue.remove(member);
    result.ended += 1;
  }

  async function pass(stopped: () => boolean): Promise<SessionEndSweepResult> {
    const result: SessionEndSweepResult = { ended: 0, alive: 0, failed: 0 };
    for (;;) {
      if (stopped()) break;
      const batch = await claimDecoded(queue, decodeSessionEnd, {
        now: deps.now(),
        claimMs: deps.claimMs,
        limit: batchSize,
      });
      for (const { member, value } of batch) {
        if (stopped()) break; // unprocessed claims come due again after claimMs
        try {
          await settle(member, value, result);
        } catch (err) {
          result.failed += 1;
          counted('error');
          logger.warn(
            { err: { code: (err as { code?: unknown }).code } },
            'deleting the token of an ended session failed; retrying later',
          );
        }
      }
      if (batch.length < batchSize) break;
    }
    if (result.ended + result.failed > 0) logger.info({ ...result }, 'swept tokens of ended sessions');
    return result;
  }

  return createLeasedSweep({ ...deps, leaseName: SESSION_END_SWEEP_LEASE, what: 'session end sweep', pass });
}
