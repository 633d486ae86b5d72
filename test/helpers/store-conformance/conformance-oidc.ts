import { randomUUID } from 'node:crypto';
import type { Stores } from '../../../src/store/types.js';
import { LONG_TTL_MS, PAST_SHORT_TTL_MS, SHORT_TTL_MS, withinWindow, type Pass } from './time.js';

/** What single sign-on keeps besides sessions (OidcStores in store/oidc-stores.ts). */
export function oidcCases(stores: () => Stores, pass: Pass): void {
  describe('single sign-on: back-channel index and one-use keys', () => {
    test('when a session is indexed under keys, then each key lists it until it is removed from all of them', async () => {
      const [sub, sid] = [randomUUID(), randomUUID()];
      await stores().oidc.sessionIndex.add([sub, sid], 's1', 10_000);
      await stores().oidc.sessionIndex.add([sub], 's2', 10_000);
      expect((await stores().oidc.sessionIndex.members(sub)).sort()).toEqual(['s1', 's2']);
      expect(await stores().oidc.sessionIndex.members(sid)).toEqual(['s1']);
      await stores().oidc.sessionIndex.remove([sub, sid], 's1');
      expect(await stores().oidc.sessionIndex.members(sub)).toEqual(['s2']);
      expect(await stores().oidc.sessionIndex.members(sid)).toEqual([]);
    });

    test('when an index key outlives its time, then it lists nothing', async () => {
      const key = await withinWindow(SHORT_TTL_MS, async () => {
        const key = randomUUID();
        await stores().oidc.sessionIndex.add([key], 's1', SHORT_TTL_MS);
        expect(await stores().oidc.sessionIndex.members(key)).toEqual(['s1']);
        return key;
      });
      await pass(PAST_SHORT_TTL_MS);
      expect(await stores().oidc.sessionIndex.members(key)).toEqual([]);
    });

    test('when a later session is indexed with a shorter time, then the key lives as long as the longest', async () => {
      const key = randomUUID();
      await stores().oidc.sessionIndex.add([key], 's1', LONG_TTL_MS);
      await stores().oidc.sessionIndex.add([key], 's2', SHORT_TTL_MS);
      await pass(PAST_SHORT_TTL_MS);
      expect((await stores().oidc.sessionIndex.members(key)).sort()).toEqual(['s1', 's2']);
    });

    test('when a key is used, then only its first use counts, used() sees it, and it is free again after its time', async () => {
      // One-use keys with a lifetime long enough that both checks after the first use come before it ends
      // (a 100 ms one expired between them on a loaded machine).
      const key = await withinWindow(SHORT_TTL_MS, async () => {
        const key = randomUUID();
        expect(await stores().oidc.used(key)).toBe(false);
        expect(await stores().oidc.firstUse(key, SHORT_TTL_MS)).toBe(true);
        expect(await stores().oidc.firstUse(key, SHORT_TTL_MS)).toBe(false);
        expect(await stores().oidc.used(key)).toBe(true);
        return key;
      });
      await pass(PAST_SHORT_TTL_MS);
      expect(await stores().oidc.used(key)).toBe(false);
      expect(await stores().oidc.firstUse(key, SHORT_TTL_MS)).toBe(true);
    });
  });
}
