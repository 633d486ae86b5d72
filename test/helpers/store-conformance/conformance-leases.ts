import { randomUUID } from 'node:crypto';
import type { Stores } from '../../../src/store/types.js';
import { until } from '../wait.js';
import { A_WHILE_MS, LONG_TTL_MS, PAST_SHORT_TTL_MS, SHORT_TTL_MS, tracked, withinWindow, type Pass } from './time.js';

const sid = (): string => randomUUID();

/** The refresh lease: one holder at a time, released only by its owner, lapsing on its own. */
export function leaseCases(stores: () => Stores, pass: Pass): void {
  describe('leases', () => {
    test('when one owner holds the lease, then a second owner cannot acquire it', async () => {
      const id = sid();
      expect(await stores().leases.acquire(id, 'a', LONG_TTL_MS)).toBe(true);
      expect(await stores().leases.acquire(id, 'b', LONG_TTL_MS)).toBe(false);
      expect(await stores().leases.acquire(id, 'a', LONG_TTL_MS)).toBe(false);
    });

    test('when the owner releases, then another owner can acquire', async () => {
      const id = sid();
      await stores().leases.acquire(id, 'a', LONG_TTL_MS);
      expect(await stores().leases.release(id, 'a')).toBe(true);
      expect(await stores().leases.acquire(id, 'b', LONG_TTL_MS)).toBe(true);
    });

    test('when a non-owner releases, then it returns false and the lease stays held', async () => {
      const id = sid();
      await stores().leases.acquire(id, 'a', LONG_TTL_MS);
      expect(await stores().leases.release(id, 'b')).toBe(false);
      expect(await stores().leases.acquire(id, 'b', LONG_TTL_MS)).toBe(false);
    });

    test('when the owner renews, then the lease outlives its first TTL', async () => {
      // The renew must land before the first TTL ran out, or there is no lease left to outlive it.
      const id = await withinWindow(SHORT_TTL_MS, async () => {
        const id = sid();
        expect(await stores().leases.acquire(id, 'a', SHORT_TTL_MS)).toBe(true);
        expect(await stores().leases.renew(id, 'a', LONG_TTL_MS)).toBe(true);
        return id;
      });
      await pass(PAST_SHORT_TTL_MS);
      expect(await stores().leases.acquire(id, 'b', LONG_TTL_MS)).toBe(false);
    });

    test('when a non-owner renews, then it returns false and the lease lapses on time', async () => {
      const id = sid();
      expect(await stores().leases.acquire(id, 'a', SHORT_TTL_MS)).toBe(true);
      expect(await stores().leases.renew(id, 'b', LONG_TTL_MS)).toBe(false);
      await pass(PAST_SHORT_TTL_MS);
      expect(await stores().leases.acquire(id, 'b', LONG_TTL_MS)).toBe(true);
    });

    test('when the lease lapses after its TTL, then another owner acquires and the old owner cannot renew', async () => {
      const id = sid();
      expect(await stores().leases.acquire(id, 'a', SHORT_TTL_MS)).toBe(true);
      await pass(PAST_SHORT_TTL_MS);
      expect(await stores().leases.acquire(id, 'b', LONG_TTL_MS)).toBe(true);
      expect(await stores().leases.renew(id, 'a', LONG_TTL_MS)).toBe(false);
      expect(await stores().leases.release(id, 'a')).toBe(false);
    });

    // The waits below end by an order of events, never by a distance in time: a lease and a wait that run
    // for LONG_TTL_MS outlast `until`'s deadline, so a wait seen to end did not end at either of them.
    test('when the holder releases during waitForRelease, then the wait ends soon after', async () => {
      const id = sid();
      expect(await stores().leases.acquire(id, 'a', LONG_TTL_MS)).toBe(true);
      const wait = tracked(stores().leases.waitForRelease(id, LONG_TTL_MS));
      await pass(A_WHILE_MS);
      expect(wait.settled).toBe(false); // held: still waiting
      expect(await stores().leases.release(id, 'a')).toBe(true);
      await until('the wait to end after the release', () => wait.settled);
    });

    test('when the lease lapses during waitForRelease, then the wait ends soon after', async () => {
      const { id, wait } = await withinWindow(SHORT_TTL_MS, async () => {
        const id = sid();
        expect(await stores().leases.acquire(id, 'a', SHORT_TTL_MS)).toBe(true);
        const wait = tracked(stores().leases.waitForRelease(id, LONG_TTL_MS));
        await pass(A_WHILE_MS);
        expect(wait.settled).toBe(false); // not lapsed yet: still waiting
        return { id, wait };
      });
      await pass(PAST_SHORT_TTL_MS);
      await until('the wait to end once the lease lapsed', () => wait.settled);
      expect(await stores().leases.acquire(id, 'b', LONG_TTL_MS)).toBe(true);
    });

    test('when the lease outlasts maxWaitMs, then waitForRelease resolves at the deadline, lease still held', async () => {
      const maxWaitMs = SHORT_TTL_MS;
      const { id, wait } = await withinWindow(maxWaitMs, async () => {
        const id = sid();
        expect(await stores().leases.acquire(id, 'a', LONG_TTL_MS)).toBe(true);
        const wait = tracked(stores().leases.waitForRelease(id, maxWaitMs));
        await pass(A_WHILE_MS);
        expect(wait.settled).toBe(false); // before its deadline: still waiting
        return { id, wait };
      });
      await pass(maxWaitMs);
      await until('the wait to end at its deadline', () => wait.settled);
      expect(await stores().leases.acquire(id, 'b', LONG_TTL_MS)).toBe(false);
    });

    test('when no lease exists, then waitForRelease returns at once', async () => {
      const wait = tracked(stores().leases.waitForRelease(sid(), LONG_TTL_MS));
      await until('the wait to end with no lease to wait for', () => wait.settled);
    });
  });
}
