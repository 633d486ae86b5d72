import { Redis } from 'ioredis';
import { createRedisSecretDrops } from '../../../src/store/redis/secret-drops.js';
import { encodeDrop } from '../../../src/store/secret-drops.js';
import { redisKeys } from '../../../src/store/keys.js';
import { createGuard } from '../../../src/store/store-error.js';
import { deleteKeysWithPrefix, uniquePrefix } from '../../helpers/redis-prefix.js';

const drop = (alias: string, graph: string | null = 'social') => ({ alias, graph, sealedSecret: `sealed-${alias}` });

const redis = new Redis('redis://127.0.0.1:6379');
const prefix = uniquePrefix('secret-drops');
afterEach(() => deleteKeysWithPrefix(redis, prefix));
afterAll(() => redis.quit());

// What both stores owe is in the store conformance suite (test/helpers/store-conformance/); this is Redis's own.
describe('secret drop store: redis specifics', () => {
  test('when a member is not one the service wrote, then a claim removes it instead of returning it forever', async () => {
    const own = `${prefix}junk:`;
    const store = createRedisSecretDrops({ redis, keys: redisKeys(own), guard: createGuard() });
    await redis.zadd(`${own}secret-drops`, 1000, 'not json', 1001, encodeDrop(drop('g')));
    expect(await store.claimDue(5000, 1000, 10)).toEqual([drop('g')]);
    expect(await redis.zrange(`${own}secret-drops`, 0, -1)).toEqual([encodeDrop(drop('g'))]);
  });
});
