import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Stores } from '../../../src/store/types.js';

const sid = (): string => randomUUID();

async function elapsed(op: () => Promise<unknown>): Promise<number> {
  const started = Date.now();
  await op();
  return Date.now() - started;
}

/** The refresh lease: one holder at a time, released only by its owner, lapsing on its own. */
export function leaseCases(stores: () => Stores): void {
  describe('leases', () => {
    test('when one owner holds the lease, then a second owner cannot acquire it', async () => {
      const id = sid();
      expect(await stores().leases.acquire(id, 'a', 5_000)).toBe(true);
      expect(await stores().leases.acquire(id, 'b', 5_000)).toBe(false);
      expect(await stores().leases.acquire(id, 'a', 5_000)).toBe(false);
    });

    test('when the owner releases, then another owner can acquire', async () => {
      const id = sid();
      await stores().leases.acquire(id, 'a', 5_000);
      expect(await stores().leases.release(id, 'a')).toBe(true);
      expect(await stores().leases.acquire(id, 'b', 5_000)).toBe(true);
    });

    test('when a non-owner releases, then it returns false and the lease stays held', async () => {
      const id = sid();
      await stores().leases.acquire(id, 'a', 5_000);
      expect(await stores().leases.release(id, 'b')).toBe(false);
      expect(await stores().leases.acquire(id, 'b', 5_000)).toBe(false);
    });

    test('when the owner renews, then the lease outlives its first TTL', async () => {
      const id = sid();
      // Timed from before the acquire, so a slow machine cannot let the first TTL pass before the renew.
      const start = performance.now();
      await stores().leases.acquire(id, 'a', 1_000);
      expect(await stores().leases.renew(id, 'a', 5_000)).toBe(true);
      await sleep(Math.max(0, 1_000 + 200 - (performance.now() - start)));
      expect(await stores().leases.acquire(id, 'b', 5_000)).toBe(false);
    });

    test('when a non-owner renews, then it returns false and the lease lapses on time', async () => {
      const id = sid();
      await stores().leases.acquire(id, 'a', 200);
      expect(await stores().leases.renew(id, 'b', 5_000)).toBe(false);
      await sleep(350);
      expect(await stores().leases.acquire(id, 'b', 5_000)).toBe(true);
    });

    test('when the lease lapses after its TTL, then another owner acquires and the old owner cannot renew', async () => {
      const id = sid();
      await stores().leases.acquire(id, 'a', 100);
      await sleep(250);
      expect(await stores().leases.acquire(id, 'b', 5_000)).toBe(true);
      expect(await stores().leases.renew(id, 'a', 5_000)).toBe(false);
      expect(await stores().leases.release(id, 'a')).toBe(false);
    });

    test('when the holder releases during waitForRelease, then the wait ends soon after', async () => {
      const id = sid();
      await stores().leases.acquire(id, 'a', 10_000);
      setTimeout(() => void stores().leases.release(id, 'a'), 150);
      const waited = await elapsed(() => stores().leases.waitForRelease(id, 5_000));
      expect(waited).toBeGreaterThanOrEqual(100);
      expect(waited).toBeLessThan(1_500);
    });

    test('when the lease lapses during waitForRelease, then the wait ends soon after', async () => {
      const id = sid();
      // Timed from before the acquire: a starved worker once began the wait after the 200 ms had passed (1 ms).
      const waited = await elapsed(async () => {
        await stores().leases.acquire(id, 'a', 200);
        await stores().leases.waitForRelease(id, 5_000);
      });
      expect(waited).toBeGreaterThanOrEqual(150);
      expect(waited).toBeLessThan(1_500);
    });

    test('when the lease outlasts maxWaitMs, then waitForRelease resolves at the deadline, lease still held', async () => {
      const id = sid();
      await stores().leases.acquire(id, 'a', 10_000);
      const waited = await elapsed(() => stores().leases.waitForRelease(id, 250));
      expect(waited).toBeGreaterThanOrEqual(240);
      expect(waited).toBeLessThan(1_500);
      expect(await stores().leases.acquire(id, 'b', 5_000)).toBe(false);
    });

    test('when no lease exists, then waitForRelease returns at once', async () => {
      expect(await elapsed(() => stores().leases.waitForRelease(sid(), 5_000))).toBeLessThan(500);
    });
  });
}
