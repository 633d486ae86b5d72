import { randomUUID } from 'node:crypto';
import type { Logger } from '../observability/logger.js';
import type { LeaseStore } from '../store/types.js';
import { maskSecret } from '@tigergraph-bff/client';

export type LeaseOutcome<T> = { acquired: true; value: T } | { acquired: false };

/** Runs work under the cross-instance lease of one session, or reports that someone else holds it. */
export interface LeaseRunner {
  tryWith<T>(sid: string, work: () => Promise<T>): Promise<LeaseOutcome<T>>;
}

export function createLeaseRunner(deps: {
  leases: LeaseStore;
  ttlMs: number;
  instanceId: string;
  logger: Logger;
}): LeaseRunner {
  const { leases, ttlMs, logger } = deps;

  return {
    async tryWith(sid, work) {
      // A fresh owner per acquisition: a late release from an earlier holding can never free this one.
      const owner = `${deps.instanceId}:${randomUUID()}`;
      if (!(await leases.acquire(sid, owner, ttlMs))) return { acquired: false };
      // Renewing keeps a slow upstream call from letting the lease lapse, which would let another
      // instance start a second call for the same refresh.
      const timer = setInterval(
        () => {
          leases.renew(sid, owner, ttlMs).then(
            (held) => {
              if (!held) logger.warn({ sid: maskSecret(sid) }, 'token lease lost while refreshing');
            },
            (err: unknown) => logger.warn({ err, sid: maskSecret(sid) }, 'token lease renewal failed'),
          );
        },
        Math.max(1, Math.floor(ttlMs / 3)),
      );
      timer.unref();
      try {
        return { acquired: true, value: await work() };
      } finally {
        clearInterval(timer);
        // If this fails the lease simply lapses after ttlMs; the work's outcome still stands.
        await leases.release(sid, owner).catch((err: unknown) => {
          logger.warn({ err, sid: maskSecret(sid) }, 'token lease release failed');
        });
      }
    },
  };
}
