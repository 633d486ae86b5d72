import type { Logger } from '../observability/logger.js';
import type { SecretDropStore } from '../store/secret-drops.js';
import type { LeaseStore } from '../store/types.js';
import { createLeaseRunner } from '../tokens/lease-runner.js';
import type { SecretDropperFn } from './secret-dropper.js';

export interface SweepResult {
  dropped: number;
  /** Already gone upstream (e.g. logout dropped it but could not clear the entry), or never droppable (logged). */
  gone: number;
  /** Left for a later sweep (admin server down, unexpected answer). */
  failed: number;
}

export interface SecretSweeper {
  /** One pass, if this instance gets the lease; null when another instance is sweeping. */
  sweep(): Promise<SweepResult | null>;
  /** Sweeps every intervalMs until stop(). */
  start(): void;
  /** Stops the timer and waits for a pass in progress (it ends after its current drop). */
  stop(): Promise<void>;
}

export interface SecretSweeperDeps {
  drops: SecretDropStore;
  leases: LeaseStore;
  dropSecret: SecretDropperFn;
  intervalMs: number;
  /** How long a claimed entry stays hidden: the retry delay after a failed drop. */
  claimMs: number;
  /** Lease TTL, renewed while a pass runs. */
  leaseTtlMs: number;
  batchSize?: number;
  now: () => number;
  instanceId: string;
  logger: Logger;
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
  const lease = createLeaseRunner({ leases: deps.leases, ttlMs: deps.leaseTtlMs, instanceId: deps.instanceId, logger });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = false;

  async function pass(): Promise<SweepResult> {
    const result: SweepResult = { dropped: 0, gone: 0, failed: 0 };
    for (;;) {
      if (stopped) return result;
      const batch = await drops.claimDue(deps.now(), deps.claimMs, batchSize);
      for (const drop of batch) {
        if (stopped) return result; // unprocessed claims come due again after claimMs
        try {
          const outcome = await deps.dropSecret(drop);
          if (outcome === 'unsealable') logger.error({ alias: drop.alias }, 'expired session secret cannot be unsealed any more; drop it by hand');
          await drops.remove(drop);
          if (outcome === 'dropped') result.dropped += 1;
          else result.gone += 1;
        } catch (err) {
          result.failed += 1;
          logger.warn({ err, alias: drop.alias }, 'dropping an expired session secret failed; retrying later');
        }
      }
      if (batch.length < batchSize) return result;
    }
  }

  async function sweep(): Promise<SweepResult | null> {
    const outcome = await lease.tryWith(SWEEP_LEASE, pass);
    if (!outcome.acquired) return null;
    const r = outcome.value;
    if (r.dropped + r.gone + r.failed > 0) logger.info({ ...r }, 'swept secrets of expired sessions');
    return r;
  }

  const tick = () => {
    if (running) return; // a slow pass is still going; the next tick will look again
    running = sweep()
      .catch((err: unknown) => logger.warn({ err }, 'secret sweep failed'))
      .finally(() => (running = undefined));
  };

  return {
    sweep,
    start() {
      stopped = false;
      timer ??= setInterval(tick, deps.intervalMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
