import { Redis } from 'ioredis';
import { createMemorySecretDrops } from '../../../src/store/memory/secret-drops.js';
import { createRedisSecretDrops } from '../../../src/store/redis/secret-drops.js';
import { encodeDrop, type SecretDropStore } from '../../../src/store/secret-drops.js';
import { createGuard } from '../../../src/store/store-error.js';
import { deleteKeysWithPrefix, uniquePrefix } from '../../helpers/redis-prefix.js';

const drop = (alias: string, graph: string | null = 'social') => ({ alias, graph, sealedSecret: `sealed-${alias}` });

/** The same expectations for both stores: Redis for many instances, memory for the embedded mode. */
function conformance(name: string, make: () => SecretDropStore) {
  describe(`secret drop store: ${name}`, () => {
    let store: SecretDropStore;
    beforeEach(() => {
      store = make();
    });

    test('when entries are due, then claimDue returns them oldest first, up to the limit, and not those due later', async () => {
      await store.add(drop('b'), 2000);
      await store.add(drop('a', null), 1000);
      await store.add(drop('later'), 9000);
      expect(await store.claimDue(5000, 100, 10)).toEqual([drop('a', null), drop('b')]);
    });

    test('when an entry is claimed, then it is hidden from other claims until the claim window ends', async () => {
      await store.add(drop('c'), 1000);
      expect(await store.claimDue(5000, 1000, 10)).toEqual([drop('c')]);
      expect(await store.claimDue(5500, 1000, 10)).toEqual([]);
      expect(await store.claimDue(6000, 1000, 10)).toEqual([drop('c')]);
    });

    test('when the limit is smaller than what is due, then the rest stays for the next claim', async () => {
      for (const [i, alias] of ['d1', 'd2', 'd3'].entries()) await store.add(drop(alias), 1000 + i);
      expect((await store.claimDue(5000, 1000, 2)).map((d) => d.alias)).toEqual(['d1', 'd2']);
      expect((await store.claimDue(5000, 1000, 2)).map((d) => d.alias)).toEqual(['d3']);
    });

    test('when an entry is removed, then rescheduling it does not bring it back', async () => {
      await store.add(drop('e'), 1000);
      await store.remove(drop('e'));
      await store.reschedule(drop('e'), 0);
      expect(await store.claimDue(5000, 1000, 10)).toEqual([]);
    });

    test('when an entry is rescheduled to now, then it is due at once', async () => {
      await store.add(drop('f'), 99_000);
      await store.reschedule(drop('f'), 4000);
      expect(await store.claimDue(5000, 1000, 10)).toEqual([drop('f')]);
    });
  });
}

const redis = new Redis('redis://127.0.0.1:6379');
const prefix = uniquePrefix('secret-drops');
let round = 0;
afterEach(() => deleteKeysWithPrefix(redis, prefix));
afterAll(() => redis.quit());

conformance('memory', createMemorySecretDrops);
conformance('redis', () =>
  createRedisSecretDrops({ redis, prefix: `${prefix}${(round += 1)}:`, guard: createGuard() }),
);

describe('secret drop store: redis specifics', () => {
  test('when a member is not one the service wrote, then a claim removes it instead of returning it forever', async () => {
    const own = `${prefix}junk:`;
    const store = createRedisSecretDrops({ redis, prefix: own, guard: createGuard() });
    await redis.zadd(`${own}secret-drops`, 1000, 'not json', 1001, encodeDrop(drop('g')));
    expect(await store.claimDue(5000, 1000, 10)).toEqual([drop('g')]);
    expect(await redis.zrange(`${own}secret-drops`, 0, -1)).toEqual([encodeDrop(drop('g'))]);
  });
});
