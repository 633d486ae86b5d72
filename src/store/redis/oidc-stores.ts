import type { RedisKeys } from '../keys.js';
import type { OidcStores } from '../oidc-stores.js';
import type { Guard } from '../store-error.js';
import { positiveMs } from '../ttl.js';
import type { RedisClient } from './client.js';

export function createRedisOidcStores(deps: { redis: RedisClient; keys: RedisKeys; guard: Guard }): OidcStores {
  const { redis, keys, guard } = deps;
  const idx = keys.oidcIndex;
  const jti = keys.oidcUsed;
  return {
    sessionIndex: {
      async add(indexKeys, sid, ttlMs) {
        for (const key of indexKeys) {
          await guard(() => redis.multi().sadd(idx(key), sid).pexpire(idx(key), positiveMs(ttlMs), 'GT').exec());
          // GT does not set a TTL on a key that has none (a fresh set): make sure it gets one.
          await guard(() => redis.pexpire(idx(key), positiveMs(ttlMs), 'NX'));
        }
      },
      members: (key) => guard(() => redis.smembers(idx(key))),
      async remove(indexKeys, sid) {
        for (const key of indexKeys) await guard(() => redis.srem(idx(key), sid));
      },
    },
    async firstUse(key, ttlMs) {
      const set = await guard(() => redis.set(jti(key), '1', 'PX', positiveMs(ttlMs), 'NX'));
      return set === 'OK';
    },
    async used(key) {
      return (await guard(() => redis.exists(jti(key)))) === 1;
    },
  };
}
