import { randomUUID } from 'node:crypto';
import type { Stores } from '../../../src/store/types.js';
import { PAST_SHORT_TTL_MS, SHORT_TTL_MS, withinWindow, type Pass } from './time.js';

const sid = (): string => randomUUID();

/** Token state and tombstones: what a session knows about its upstream token and its end. */
export function tokenCases(stores: () => Stores, pass: Pass): void {
  describe('tokens', () => {
    const state = { token: 'tok-abc-123456', expiresAt: 1_900_000_000, version: 3 };

    test('when a token state is set, then get returns token, expiresAt and version', async () => {
      const id = sid();
      await stores().tokens.set(id, state, 10_000);
      expect(await stores().tokens.get(id)).toEqual(state);
    });

    test('when nothing was set, then get returns null', async () => {
      expect(await stores().tokens.get(sid())).toBeNull();
    });

    test('when it is set again, then the later state and version replace the earlier', async () => {
      const id = sid();
      await stores().tokens.set(id, state, 10_000);
      await stores().tokens.set(id, { token: 'tok-new-654321', expiresAt: 1_900_000_500, version: 4 }, 10_000);
      expect(await stores().tokens.get(id)).toEqual({ token: 'tok-new-654321', expiresAt: 1_900_000_500, version: 4 });
    });

    test('when a state records when it replaced a refused token, then get returns it, and a later state without one drops it', async () => {
      const id = sid();
      await stores().tokens.set(id, { ...state, replacedAt: 1_700_000_000_123 }, 10_000);
      expect(await stores().tokens.get(id)).toEqual({ ...state, replacedAt: 1_700_000_000_123 });
      await stores().tokens.set(id, { ...state, version: 4 }, 10_000);
      expect(await stores().tokens.get(id)).toEqual({ ...state, version: 4 });
    });

    test('when its TTL passes, then get returns null', async () => {
      const id = await withinWindow(SHORT_TTL_MS, async () => {
        const id = sid();
        await stores().tokens.set(id, state, SHORT_TTL_MS);
        expect(await stores().tokens.get(id)).toEqual(state);
        return id;
      });
      await pass(PAST_SHORT_TTL_MS);
      expect(await stores().tokens.get(id)).toBeNull();
    });

    test('when deleteIfToken names the stored token, then it deletes and returns true', async () => {
      const id = sid();
      await stores().tokens.set(id, state, 10_000);
      expect(await stores().tokens.deleteIfToken(id, state.token)).toBe(true);
      expect(await stores().tokens.get(id)).toBeNull();
    });

    test('when deleteIfToken names another token, then it keeps the state and returns false', async () => {
      const id = sid();
      await stores().tokens.set(id, state, 10_000);
      expect(await stores().tokens.deleteIfToken(id, 'tok-someone-else')).toBe(false);
      expect(await stores().tokens.get(id)).toEqual(state);
    });

    test('when deleteIfToken finds no state, then it returns false', async () => {
      expect(await stores().tokens.deleteIfToken(sid(), state.token)).toBe(false);
    });

    test('when delete is called, then the state is gone', async () => {
      const id = sid();
      await stores().tokens.set(id, state, 10_000);
      await stores().tokens.delete(id);
      expect(await stores().tokens.get(id)).toBeNull();
    });
  });

  describe('tombstones', () => {
    test('when a sid is marked, then it is dead and others are not', async () => {
      const id = sid();
      await stores().tombstones.mark(id, 10_000);
      expect(await stores().tombstones.isDead(id)).toBe(true);
      expect(await stores().tombstones.isDead(sid())).toBe(false);
    });

    test('when the tombstone TTL passes, then the sid is no longer dead', async () => {
      const id = await withinWindow(SHORT_TTL_MS, async () => {
        const id = sid();
        await stores().tombstones.mark(id, SHORT_TTL_MS);
        expect(await stores().tombstones.isDead(id)).toBe(true);
        return id;
      });
      await pass(PAST_SHORT_TTL_MS);
      expect(await stores().tombstones.isDead(id)).toBe(false);
    });
  });
}
