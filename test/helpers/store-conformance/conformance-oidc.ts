import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Stores } from '../../../src/store/types.js';

/** What single sign-on keeps besides sessions (OidcStores in store/oidc-stores.ts). */
export function oidcCases(stores: () => Stores): void {
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
      const key = randomUUID();
      await stores().oidc.sessionIndex.add([key], 's1', 50);
      await sleep(120);
      expect(await stores().oidc.sessionIndex.members(key)).toEqual([]);
    });

    test('when a later session is indexed with a longer time, then the key lives as long as the longest', async () => {
      const key = randomUUID();
      await stores().oidc.sessionIndex.add([key], 's1', 10_000);
      await stores().oidc.sessionIndex.add([key], 's2', 50);
      await sleep(120);
      expect((await stores().oidc.sessionIndex.members(key)).sort()).toEqual(['s1', 's2']);
    });

    test('when a key is used, then only its first use counts, used() sees it, and it is free again after its time', async () => {
      const key = randomUUID();
      expect(await stores().oidc.used(key)).toBe(false);
      expect(await stores().oidc.firstUse(key, 100)).toBe(true);
      expect(await stores().oidc.firstUse(key, 100)).toBe(false);
      expect(await stores().oidc.used(key)).toBe(true);
      await sleep(180);
      expect(await stores().oidc.used(key)).toBe(false);
      expect(await stores().oidc.firstUse(key, 100)).toBe(true);
    });
  });
}
