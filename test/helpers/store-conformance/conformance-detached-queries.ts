import { randomUUID } from 'node:crypto';
import type { Stores } from '../../../src/store/types.js';
import { LONG_TTL_MS, PAST_SHORT_TTL_MS, SHORT_TTL_MS, withinWindow, type Pass } from './time.js';

/** Detached queries by principal (DetachedQueryStore in store/detached-queries.ts). */
export function detachedQueryCases(stores: () => Stores, pass: Pass): void {
  describe('detached queries', () => {
    const principal = (): string => `p-${randomUUID()}`;
    const long = { ttlMs: LONG_TTL_MS, ceiling: 100 };

    test('when an id is recorded for one principal, then it is owned by that principal only', async () => {
      const [alice, bob] = [principal(), principal()];
      await stores().detachedQueries.record(alice, '1.RESTPP_1_1.1.N', Date.now(), long);
      const now = Date.now();
      expect(await stores().detachedQueries.owned(alice, ['1.RESTPP_1_1.1.N', 'other'], now)).toEqual(
        new Set(['1.RESTPP_1_1.1.N']),
      );
      expect(await stores().detachedQueries.owned(bob, ['1.RESTPP_1_1.1.N'], now)).toEqual(new Set());
      expect(await stores().detachedQueries.list(alice, now)).toEqual(['1.RESTPP_1_1.1.N']);
      expect(await stores().detachedQueries.list(bob, now)).toEqual([]);
      expect(await stores().detachedQueries.count(alice, now)).toBe(1);
    });

    test('when more than the ceiling are recorded, then the oldest go first', async () => {
      const p = principal();
      const base = Date.now();
      for (let i = 0; i < 5; i++)
        await stores().detachedQueries.record(p, `id-${i}`, base + i, { ttlMs: LONG_TTL_MS, ceiling: 3 });
      expect(await stores().detachedQueries.list(p, base)).toEqual(['id-2', 'id-3', 'id-4']);
      expect(await stores().detachedQueries.count(p, base)).toBe(3);
    });

    test('when an id outlives its TTL, then it is owned no more and not counted', async () => {
      const p = principal();
      await withinWindow(SHORT_TTL_MS, async () => {
        await stores().detachedQueries.record(p, 'short', Date.now(), { ttlMs: SHORT_TTL_MS, ceiling: 10 });
        expect(await stores().detachedQueries.owned(p, ['short'], Date.now())).toEqual(new Set(['short']));
      });
      await pass(PAST_SHORT_TTL_MS);
      expect(await stores().detachedQueries.owned(p, ['short'], Date.now())).toEqual(new Set());
      expect(await stores().detachedQueries.count(p, Date.now())).toBe(0);
      expect(await stores().detachedQueries.list(p, Date.now())).toEqual([]);
    });
  });
}
