import { randomUUID } from 'node:crypto';
import type { Stores } from '../../../src/store/types.js';
import { sessionExpiringIn } from '../session-records.js';
import { A_WHILE_MS, LONG_TTL_MS, PAST_SHORT_TTL_MS, SHORT_TTL_MS, withinWindow, type Pass } from './time.js';

const sid = (): string => randomUUID();

/** Login rate limiting and the session store (src/store/session-store.ts). */
export function limitAndSessionCases(stores: () => Stores, pass: Pass): void {
  describe('rate limiter', () => {
    test('when hits exceed max in one window, then the extra hit is refused with retryAfterMs within the window', async () => {
      const key = `ip:${sid()}`;
      const started = performance.now();
      expect(await stores().rateLimiter.hit(key, 2, LONG_TTL_MS)).toEqual({ allowed: true, retryAfterMs: 0 });
      expect(await stores().rateLimiter.hit(key, 2, LONG_TTL_MS)).toEqual({ allowed: true, retryAfterMs: 0 });
      const refused = await stores().rateLimiter.hit(key, 2, LONG_TTL_MS);
      const took = performance.now() - started;
      expect(refused.allowed).toBe(false);
      // What is left of the window opened by the first hit: all of it, less the time these three hits took
      // (and a millisecond of rounding), however long that was.
      expect(refused.retryAfterMs).toBeLessThanOrEqual(LONG_TTL_MS);
      expect(refused.retryAfterMs).toBeGreaterThanOrEqual(Math.floor(LONG_TTL_MS - took) - 1);
    });

    test('when the window passes, then hits are allowed again', async () => {
      const key = await withinWindow(SHORT_TTL_MS, async () => {
        const key = `ip:${sid()}`;
        expect((await stores().rateLimiter.hit(key, 1, SHORT_TTL_MS)).allowed).toBe(true);
        expect((await stores().rateLimiter.hit(key, 1, SHORT_TTL_MS)).allowed).toBe(false);
        return key;
      });
      await pass(PAST_SHORT_TTL_MS);
      expect(await stores().rateLimiter.hit(key, 1, SHORT_TTL_MS)).toEqual({ allowed: true, retryAfterMs: 0 });
    });

    test('when refused hits keep coming, then the window does not extend', async () => {
      const key = `ip:${sid()}`;
      expect((await stores().rateLimiter.hit(key, 1, LONG_TTL_MS)).allowed).toBe(true);
      expect((await stores().rateLimiter.hit(key, 1, LONG_TTL_MS)).allowed).toBe(false);
      await pass(SHORT_TTL_MS);
      const refused = await stores().rateLimiter.hit(key, 1, LONG_TTL_MS);
      expect(refused.allowed).toBe(false);
      // At least SHORT_TTL_MS of the window is gone; a refused hit that opened it again would leave all of it.
      expect(refused.retryAfterMs).toBeLessThanOrEqual(LONG_TTL_MS - SHORT_TTL_MS / 2);
    });

    test('when a key is reset, then it is allowed again and other keys keep their count', async () => {
      const key = `user:${sid()}`;
      const other = `user:${sid()}`;
      await stores().rateLimiter.hit(key, 1, LONG_TTL_MS);
      await stores().rateLimiter.hit(other, 1, LONG_TTL_MS);
      await stores().rateLimiter.reset(key);
      expect((await stores().rateLimiter.hit(key, 1, LONG_TTL_MS)).allowed).toBe(true);
      expect((await stores().rateLimiter.hit(other, 1, LONG_TTL_MS)).allowed).toBe(false);
    });
  });

  describe('rate limiter: take-backs and doubling waits', () => {
    // Waits of a second and more: each refusal below must come before the wait the hit before it set ran
    // out, on a machine whose CPUs are taken too (waits of 200 ms left a stalled worker too little room).
    const policy = { free: 2, baseMs: SHORT_TTL_MS, maxMs: 2.5 * SHORT_TTL_MS, forgetMs: LONG_TTL_MS };

    test('when an allowed hit is taken back, then it no longer counts against the window', async () => {
      const key = `ip:${sid()}`;
      await stores().rateLimiter.hit(key, 1, LONG_TTL_MS);
      await stores().rateLimiter.unhit(key);
      expect((await stores().rateLimiter.hit(key, 1, LONG_TTL_MS)).allowed).toBe(true);
      expect((await stores().rateLimiter.hit(key, 1, LONG_TTL_MS)).allowed).toBe(false);
    });

    test('when counted hits reach free, then each further one waits twice as long, up to maxMs, and refused ones do not count', async () => {
      const key = `pair:${sid()}`;
      const limiter = stores().rateLimiter;
      expect(await limiter.backoff(key, policy)).toEqual({ allowed: true, retryAfterMs: 0 });
      // Each refusal's retryAfterMs is the wait the last allowed hit set, less the time since that hit:
      // the waits set are baseMs, twice that, then four times that held at maxMs.
      const expected = [policy.baseMs, 2 * policy.baseMs, policy.maxMs];
      let allowedAt = Date.now();
      expect(await limiter.backoff(key, policy)).toEqual({ allowed: true, retryAfterMs: 0 }); // 2nd: waits baseMs
      for (const wait of expected) {
        const refused = await limiter.backoff(key, policy);
        const since = Date.now() - allowedAt;
        expect(refused.allowed).toBe(false);
        expect(refused.retryAfterMs).toBeLessThanOrEqual(wait);
        expect(refused.retryAfterMs).toBeGreaterThanOrEqual(wait - since);
        await limiter.backoff(key, policy); // refused too: must not lengthen the wait
        await pass(refused.retryAfterMs + 30);
        allowedAt = Date.now();
        expect((await limiter.backoff(key, policy)).allowed).toBe(true);
      }
    });

    test('when a waiting key takes back its hit or is reset, then it is allowed at once', async () => {
      const limiter = stores().rateLimiter;
      // Each refusal below must come within the wait (baseMs) the hit before it set.
      const { key, refused } = await withinWindow(policy.baseMs, async () => {
        const key = `pair:${sid()}`;
        await limiter.backoff(key, policy);
        await limiter.backoff(key, policy);
        return { key, refused: await limiter.backoff(key, policy) };
      });
      expect(refused.allowed).toBe(false);
      const again = await withinWindow(policy.baseMs, async () => {
        await limiter.unhit(key);
        return [await limiter.backoff(key, policy), await limiter.backoff(key, policy)];
      });
      expect(again.map((answer) => answer.allowed)).toEqual([true, false]); // counted again: waits again
      await limiter.reset(key);
      expect((await limiter.backoff(key, policy)).allowed).toBe(true);
      expect((await limiter.backoff(key, policy)).allowed).toBe(true);
    });
  });

  describe('session store', () => {
    test('when a session is set, then get returns its fields', async () => {
      const id = sid();
      const store = stores().sessionStore;
      await store.set(id, sessionExpiringIn(10_000, { graph: 'social' }));
      expect(await store.get(id)).toMatchObject({ graph: 'social', cookie: { originalMaxAge: 10_000 } });
    });

    test('when a session is destroyed, then get returns nothing', async () => {
      const id = sid();
      const store = stores().sessionStore;
      await store.set(id, sessionExpiringIn(10_000, { graph: 'social' }));
      await store.destroy(id);
      expect(await store.get(id)).toBeFalsy();
    });

    test('when the cookie expiry passes, then the session is gone', async () => {
      const store = stores().sessionStore;
      const id = await withinWindow(SHORT_TTL_MS, async () => {
        const id = sid();
        await store.set(id, sessionExpiringIn(SHORT_TTL_MS, { graph: 'social' }));
        expect(await store.get(id)).toMatchObject({ graph: 'social' });
        return id;
      });
      await pass(PAST_SHORT_TTL_MS);
      expect(await store.get(id)).toBeFalsy();
    });

    test('when a session is touched with a later expiry, then it outlives the first one', async () => {
      const store = stores().sessionStore;
      // The touch must land before the first expiry, or there is nothing left to outlive it.
      const id = await withinWindow(SHORT_TTL_MS, async () => {
        const id = sid();
        await store.set(id, sessionExpiringIn(SHORT_TTL_MS, { graph: 'social' }));
        await pass(A_WHILE_MS);
        await store.touch(id, sessionExpiringIn(LONG_TTL_MS));
        return id;
      });
      await pass(PAST_SHORT_TTL_MS);
      expect(await store.get(id)).toMatchObject({ graph: 'social' });
    });
  });
}
