import { setTimeout as sleep } from 'node:timers/promises';
import { ExpiringMap } from '../../cache/expiring-map.js';
import type { LeaseStore } from '../types.js';

/** Single-process leases with the Redis semantics; waiters wake on release or when the lease lapses. */
export function createMemoryLeaseStore(): LeaseStore & { close(): void } {
  const owners = new ExpiringMap<string>();
  const waiters = new Map<string, Set<() => void>>();

  const wake = (sid: string): void => {
    for (const resolve of waiters.get(sid) ?? []) resolve();
    waiters.delete(sid);
  };

  const released = (sid: string, ms: number): Promise<void> => {
    const abort = new AbortController();
    const woken = new Promise<void>((resolve) => {
      const set = waiters.get(sid) ?? new Set();
      set.add(resolve);
      waiters.set(sid, set);
      abort.signal.addEventListener('abort', () => set.delete(resolve));
    });
    const timer = sleep(ms, undefined, { ref: false, signal: abort.signal }).catch(() => undefined);
    return Promise.race([woken, timer]).finally(() => abort.abort());
  };

  return {
    async acquire(sid, owner, ttlMs) {
      if (owners.get(sid) !== undefined) return false;
      owners.set(sid, owner, ttlMs);
      return true;
    },
    async renew(sid, owner, ttlMs) {
      if (owners.get(sid) !== owner) return false;
      owners.set(sid, owner, ttlMs);
      return true;
    },
    async release(sid, owner) {
      if (owners.get(sid) !== owner) return false;
      owners.delete(sid);
      wake(sid);
      return true;
    },
    async waitForRelease(sid, maxWaitMs) {
      const deadline = Date.now() + maxWaitMs;
      for (;;) {
        const lapse = owners.expiresAt(sid);
        const remaining = deadline - Date.now();
        if (lapse === undefined || remaining <= 0) return;
        // Re-check after waking: a renew may have pushed the lapse further out.
        await released(sid, Math.max(1, Math.min(remaining, lapse - Date.now())));
      }
    },
    close: () => {
      owners.close();
      for (const sid of [...waiters.keys()]) wake(sid);
    },
  };
}
