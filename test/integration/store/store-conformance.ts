import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sessionCalls, sessionExpiringIn } from '../../helpers/session-store-calls.js';
import type { Stores } from '../../../src/store/types.js';

export interface StoresUnderTest {
  stores: Stores;
  dispose(): Promise<void>;
}

const sid = (): string => randomUUID();

async function elapsed(op: () => Promise<unknown>): Promise<number> {
  const started = Date.now();
  await op();
  return Date.now() - started;
}

/** The behaviour every Stores implementation owes the service; run against Redis and memory alike. */
export function storeConformance(label: string, open: () => Promise<StoresUnderTest>): void {
  describe(`${label} stores`, () => {
    let under: StoresUnderTest;
    let stores: Stores;
    beforeAll(async () => {
      under = await open();
      stores = under.stores;
    });
    afterAll(() => under.dispose());

    describe('tokens', () => {
      const state = { token: 'tok-abc-123456', expiresAt: 1_900_000_000, version: 3 };

      test('when a token state is set, then get returns token, expiresAt and version', async () => {
        const id = sid();
        await stores.tokens.set(id, state, 10_000);
        expect(await stores.tokens.get(id)).toEqual(state);
      });

      test('when nothing was set, then get returns null', async () => {
        expect(await stores.tokens.get(sid())).toBeNull();
      });

      test('when it is set again, then the later state and version replace the earlier', async () => {
        const id = sid();
        await stores.tokens.set(id, state, 10_000);
        await stores.tokens.set(id, { token: 'tok-new-654321', expiresAt: 1_900_000_500, version: 4 }, 10_000);
        expect(await stores.tokens.get(id)).toEqual({ token: 'tok-new-654321', expiresAt: 1_900_000_500, version: 4 });
      });

      test('when its TTL passes, then get returns null', async () => {
        const id = sid();
        await stores.tokens.set(id, state, 150);
        await sleep(300);
        expect(await stores.tokens.get(id)).toBeNull();
      });

      test('when deleteIfToken names the stored token, then it deletes and returns true', async () => {
        const id = sid();
        await stores.tokens.set(id, state, 10_000);
        expect(await stores.tokens.deleteIfToken(id, state.token)).toBe(true);
        expect(await stores.tokens.get(id)).toBeNull();
      });

      test('when deleteIfToken names another token, then it keeps the state and returns false', async () => {
        const id = sid();
        await stores.tokens.set(id, state, 10_000);
        expect(await stores.tokens.deleteIfToken(id, 'tok-someone-else')).toBe(false);
        expect(await stores.tokens.get(id)).toEqual(state);
      });

      test('when deleteIfToken finds no state, then it returns false', async () => {
        expect(await stores.tokens.deleteIfToken(sid(), state.token)).toBe(false);
      });

      test('when delete is called, then the state is gone', async () => {
        const id = sid();
        await stores.tokens.set(id, state, 10_000);
        await stores.tokens.delete(id);
        expect(await stores.tokens.get(id)).toBeNull();
      });
    });

    describe('leases', () => {
      test('when one owner holds the lease, then a second owner cannot acquire it', async () => {
        const id = sid();
        expect(await stores.leases.acquire(id, 'a', 5_000)).toBe(true);
        expect(await stores.leases.acquire(id, 'b', 5_000)).toBe(false);
        expect(await stores.leases.acquire(id, 'a', 5_000)).toBe(false);
      });

      test('when the owner releases, then another owner can acquire', async () => {
        const id = sid();
        await stores.leases.acquire(id, 'a', 5_000);
        expect(await stores.leases.release(id, 'a')).toBe(true);
        expect(await stores.leases.acquire(id, 'b', 5_000)).toBe(true);
      });

      test('when a non-owner releases, then it returns false and the lease stays held', async () => {
        const id = sid();
        await stores.leases.acquire(id, 'a', 5_000);
        expect(await stores.leases.release(id, 'b')).toBe(false);
        expect(await stores.leases.acquire(id, 'b', 5_000)).toBe(false);
      });

      test('when the owner renews, then the lease outlives its first TTL', async () => {
        const id = sid();
        await stores.leases.acquire(id, 'a', 250);
        await sleep(100);
        expect(await stores.leases.renew(id, 'a', 2_000)).toBe(true);
        await sleep(300);
        expect(await stores.leases.acquire(id, 'b', 5_000)).toBe(false);
      });

      test('when a non-owner renews, then it returns false and the lease lapses on time', async () => {
        const id = sid();
        await stores.leases.acquire(id, 'a', 200);
        expect(await stores.leases.renew(id, 'b', 5_000)).toBe(false);
        await sleep(350);
        expect(await stores.leases.acquire(id, 'b', 5_000)).toBe(true);
      });

      test('when the lease lapses after its TTL, then another owner acquires and the old owner cannot renew', async () => {
        const id = sid();
        await stores.leases.acquire(id, 'a', 100);
        await sleep(250);
        expect(await stores.leases.acquire(id, 'b', 5_000)).toBe(true);
        expect(await stores.leases.renew(id, 'a', 5_000)).toBe(false);
        expect(await stores.leases.release(id, 'a')).toBe(false);
      });

      test('when the holder releases during waitForRelease, then the wait ends soon after', async () => {
        const id = sid();
        await stores.leases.acquire(id, 'a', 10_000);
        setTimeout(() => void stores.leases.release(id, 'a'), 150);
        const waited = await elapsed(() => stores.leases.waitForRelease(id, 5_000));
        expect(waited).toBeGreaterThanOrEqual(100);
        expect(waited).toBeLessThan(1_500);
      });

      test('when the lease lapses during waitForRelease, then the wait ends soon after', async () => {
        const id = sid();
        await stores.leases.acquire(id, 'a', 200);
        const waited = await elapsed(() => stores.leases.waitForRelease(id, 5_000));
        expect(waited).toBeGreaterThanOrEqual(150);
        expect(waited).toBeLessThan(1_500);
      });

      test('when the lease outlasts maxWaitMs, then waitForRelease resolves at the deadline, lease still held', async () => {
        const id = sid();
        await stores.leases.acquire(id, 'a', 10_000);
        const waited = await elapsed(() => stores.leases.waitForRelease(id, 250));
        expect(waited).toBeGreaterThanOrEqual(240);
        expect(waited).toBeLessThan(1_500);
        expect(await stores.leases.acquire(id, 'b', 5_000)).toBe(false);
      });

      test('when no lease exists, then waitForRelease returns at once', async () => {
        expect(await elapsed(() => stores.leases.waitForRelease(sid(), 5_000))).toBeLessThan(500);
      });
    });

    describe('tombstones', () => {
      test('when a sid is marked, then it is dead and others are not', async () => {
        const id = sid();
        await stores.tombstones.mark(id, 10_000);
        expect(await stores.tombstones.isDead(id)).toBe(true);
        expect(await stores.tombstones.isDead(sid())).toBe(false);
      });

      test('when the tombstone TTL passes, then the sid is no longer dead', async () => {
        const id = sid();
        await stores.tombstones.mark(id, 150);
        await sleep(300);
        expect(await stores.tombstones.isDead(id)).toBe(false);
      });
    });

    describe('rate limiter', () => {
      test('when hits exceed max in one window, then the extra hit is refused with retryAfterMs within the window', async () => {
        const key = `ip:${sid()}`;
        expect(await stores.rateLimiter.hit(key, 2, 2_000)).toEqual({ allowed: true, retryAfterMs: 0 });
        expect(await stores.rateLimiter.hit(key, 2, 2_000)).toEqual({ allowed: true, retryAfterMs: 0 });
        const refused = await stores.rateLimiter.hit(key, 2, 2_000);
        expect(refused.allowed).toBe(false);
        expect(refused.retryAfterMs).toBeGreaterThan(1_000);
        expect(refused.retryAfterMs).toBeLessThanOrEqual(2_000);
      });

      test('when the window passes, then hits are allowed again', async () => {
        const key = `ip:${sid()}`;
        await stores.rateLimiter.hit(key, 1, 200);
        expect((await stores.rateLimiter.hit(key, 1, 200)).allowed).toBe(false);
        await sleep(350);
        expect(await stores.rateLimiter.hit(key, 1, 200)).toEqual({ allowed: true, retryAfterMs: 0 });
      });

      test('when refused hits keep coming, then the window does not extend', async () => {
        const key = `ip:${sid()}`;
        await stores.rateLimiter.hit(key, 1, 400);
        await sleep(200);
        const refused = await stores.rateLimiter.hit(key, 1, 400);
        expect(refused.retryAfterMs).toBeLessThanOrEqual(250);
      });

      test('when a key is reset, then it is allowed again and other keys keep their count', async () => {
        const key = `user:${sid()}`;
        const other = `user:${sid()}`;
        await stores.rateLimiter.hit(key, 1, 10_000);
        await stores.rateLimiter.hit(other, 1, 10_000);
        await stores.rateLimiter.reset(key);
        expect((await stores.rateLimiter.hit(key, 1, 10_000)).allowed).toBe(true);
        expect((await stores.rateLimiter.hit(other, 1, 10_000)).allowed).toBe(false);
      });
    });

    describe('session store', () => {
      test('when a session is set, then get returns its fields', async () => {
        const id = sid();
        const calls = sessionCalls(stores.sessionStore);
        await calls.set(id, sessionExpiringIn(10_000, { graph: 'social' }));
        expect(await calls.get(id)).toMatchObject({ graph: 'social', cookie: { originalMaxAge: 10_000 } });
      });

      test('when a session is destroyed, then get returns nothing', async () => {
        const id = sid();
        const calls = sessionCalls(stores.sessionStore);
        await calls.set(id, sessionExpiringIn(10_000, { graph: 'social' }));
        await calls.destroy(id);
        expect(await calls.get(id)).toBeFalsy();
      });

      test('when the cookie expiry passes, then the session is gone', async () => {
        const id = sid();
        const calls = sessionCalls(stores.sessionStore);
        await calls.set(id, sessionExpiringIn(800, { graph: 'social' }));
        await sleep(1_300);
        expect(await calls.get(id)).toBeFalsy();
      });

      test('when a session is touched with a later expiry, then it outlives the first one', async () => {
        const id = sid();
        const calls = sessionCalls(stores.sessionStore);
        await calls.set(id, sessionExpiringIn(800, { graph: 'social' }));
        await sleep(400);
        await calls.touch(id, sessionExpiringIn(3_000));
        await sleep(1_000);
        expect(await calls.get(id)).toMatchObject({ graph: 'social' });
      });
    });

    test('when storage is up, then ping resolves', async () => {
      await expect(stores.ping()).resolves.toBeUndefined();
    });
  });
}
