import type { SecretDrop } from '../../../src/store/secret-drops.js';
import type { Stores } from '../../../src/store/types.js';

const drop = (alias: string, graph: string | null = 'social'): SecretDrop => ({
  alias,
  graph,
  sealedSecret: `sealed-${alias}`,
});

/** Password-login secrets waiting to be dropped (SecretDropStore in store/secret-drops.ts). */
export function secretDropCases(stores: () => Stores): void {
  describe('secret drops', () => {
    // One store serves every case: each starts from an empty list.
    afterEach(async () => {
      for (const left of await stores().secretDrops.claimDue(Number.MAX_SAFE_INTEGER, 1, 1000))
        await stores().secretDrops.remove(left);
    });

    test('when entries are due, then claimDue returns them oldest first, up to the limit, and not those due later', async () => {
      await stores().secretDrops.add(drop('b'), 2000);
      await stores().secretDrops.add(drop('a', null), 1000);
      await stores().secretDrops.add(drop('later'), 9000);
      expect(await stores().secretDrops.claimDue(5000, 100, 10)).toEqual([drop('a', null), drop('b')]);
    });

    test('when an entry is claimed, then it is hidden from other claims until the claim window ends', async () => {
      await stores().secretDrops.add(drop('c'), 1000);
      expect(await stores().secretDrops.claimDue(5000, 1000, 10)).toEqual([drop('c')]);
      expect(await stores().secretDrops.claimDue(5500, 1000, 10)).toEqual([]);
      expect(await stores().secretDrops.claimDue(6000, 1000, 10)).toEqual([drop('c')]);
    });

    test('when the limit is smaller than what is due, then the rest stays for the next claim', async () => {
      for (const [i, alias] of ['d1', 'd2', 'd3'].entries()) await stores().secretDrops.add(drop(alias), 1000 + i);
      expect((await stores().secretDrops.claimDue(5000, 1000, 2)).map((d) => d.alias)).toEqual(['d1', 'd2']);
      expect((await stores().secretDrops.claimDue(5000, 1000, 2)).map((d) => d.alias)).toEqual(['d3']);
    });

    test('when an entry is removed, then rescheduling it does not bring it back', async () => {
      await stores().secretDrops.add(drop('e'), 1000);
      await stores().secretDrops.remove(drop('e'));
      await stores().secretDrops.reschedule(drop('e'), 0);
      expect(await stores().secretDrops.claimDue(5000, 1000, 10)).toEqual([]);
    });

    test('when an entry is rescheduled to now, then it is due at once', async () => {
      await stores().secretDrops.add(drop('f'), 99_000);
      await stores().secretDrops.reschedule(drop('f'), 4000);
      expect(await stores().secretDrops.claimDue(5000, 1000, 10)).toEqual([drop('f')]);
    });
  });
}
