import type { SecretDropStore } from '../store/secret-drops.js';
import { createLeasedSweep, type LeasedSweep, type SweepSchedule } from '../tokens/leased-sweep.js';
import type { SecretDropperFn } from './secret-dropper.js';

export interface SweepResult {
  dropped: number;
  /** Already gone upstream (e.g. logout dropped it but could not clear the entry), or never droppable (logged). */
  gone: number;
  /** Left for a later sweep (admin server down, unexpected answer). */
  failed: number;
}

/** Drops the secrets of sessions that ended without a logout (see leased-sweep.ts for the timing). */
export type SecretSweeper = LeasedSweep<SweepResult>;

export interface SecretSweeperDeps extends SweepSchedule {
  drops: SecretDropStore;
  dropSecret: SecretDropperFn;
}

/** Lease name: a session id is 32 characters, so this can never be one. */
export const SWEEP_LEASE = 'secret-sweep';

/**
 * Drops the secrets of sessions that ended without a logout. Every instance runs it; the lease lets one
 * at a time do a pass, and claiming entries atomically keeps even overlapping passes from dropping a
 * secret twice.
 */
export function createSecretSweeper(deps: SecretSweeperDeps): SecretSweeper {
  const { drops, logger } = deps;
  const batchSize = deps.batchSize ?? 50;

  async function pass(stopped: () => boolean): Promise<SweepResult> {
    const result: SweepResult = { dropped: 0, gone: 0, failed: 0 };
    for (;;) {
      if (stopped()) return result;
      const batch = await drops.claimDue(deps.now(), deps.claimMs, batchSize);
      for (const drop of batch) {
        if (stopped()) return result; // unprocessed claims come due again after claimMs
        try {
          const outcome = await deps.dropSecret(drop);
          if (outcome === 'unsealable')
            logger.error({ alias: drop.alias }, 'expired session secret cannot be unsealed any more; drop it by hand');
          await drops.remove(drop);
          if (outcome === 'dropped') result.dropped += 1;
          else result.gone += 1;
        } catch (err) {
          result.failed += 1;
          logger.warn({ err, alias: drop.alias }, 'dropping an expired session secret failed; retrying later');
        }
      }
      if (batch.length < batchSize) break;
    }
    if (result.dropped + result.gone + result.failed > 0)
      logger.info({ ...result }, 'swept secrets of expired sessions');
    return result;
  }

  return createLeasedSweep({ ...deps, leaseName: SWEEP_LEASE, what: 'secret sweep', pass });
}
