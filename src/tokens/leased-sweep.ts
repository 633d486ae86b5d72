import type { Logger } from '../observability/logger.js';
import type { LeaseStore } from '../store/types.js';
import { createLeaseRunner } from './lease-runner.js';

/** A periodic pass that one instance at a time runs, under a named lease. */
export interface LeasedSweep<R> {
  /** One pass, if this instance gets the lease; null when another instance is sweeping. */
  sweep(): Promise<R | null>;
  /** Sweeps every intervalMs until stop(). */
  start(): void;
  /** Stops the timer and waits for a pass in progress (passes check `stopped()` between entries). */
  stop(): Promise<void>;
}

/** What every leased sweeper is given: where its lease lives and its timing. */
export interface SweepSchedule {
  leases: LeaseStore;
  intervalMs: number;
  /** How long a claimed entry stays hidden: the retry delay after a failed one. */
  claimMs: number;
  /** Lease TTL, renewed while a pass runs. */
  leaseTtlMs: number;
  /** Entries claimed per step. Default 50. */
  batchSize?: number;
  now: () => number;
  instanceId: string;
  logger: Logger;
}

export interface LeasedSweepDeps<R> extends SweepSchedule {
  /** Lease name; never 32 characters, so it can never be a session id. */
  leaseName: string;
  /** What a failed pass is logged as. */
  what: string;
  pass(stopped: () => boolean): Promise<R>;
}

/**
 * Every instance runs the timer; the lease lets one at a time do a pass. Entries are claimed atomically
 * by the passes themselves, so even overlapping passes (a lease that lapsed) never take one twice.
 */
export function createLeasedSweep<R>(deps: LeasedSweepDeps<R>): LeasedSweep<R> {
  const { logger } = deps;
  const lease = createLeaseRunner({ leases: deps.leases, ttlMs: deps.leaseTtlMs, instanceId: deps.instanceId, logger });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = false;

  async function sweep(): Promise<R | null> {
    const outcome = await lease.tryWith(deps.leaseName, () => deps.pass(() => stopped));
    return outcome.acquired ? outcome.value : null;
  }

  const tick = () => {
    if (running) return; // a slow pass is still going; the next tick will look again
    running = sweep()
      .catch((err: unknown) => logger.warn({ err }, `${deps.what} failed`))
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
