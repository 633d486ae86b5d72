import { ExpiringMap } from '../cache/expiring-map.js';
import type { RedisClient } from './redis/client.js';
import type { Guard } from './store-error.js';
import { positiveMs } from './ttl.js';

/**
 * What OIDC login and logout keep besides sessions. Redis keys (per-key operations only, so they work on
 * Cluster whatever slot each lands in): `<prefix>oidc-idx:{key}` set of session ids for an IdP `sid` or
 * `sub`, `<prefix>oidc-jti:{key}` logout token ids and completed logins already used. Both are written only after the IdP has
 * vouched for something (a login that completed, a logout token it signed); a pending login lives in the
 * browser's sealed pre-login cookie, so anonymous requests never write here.
 */
export interface OidcStores {
  /** IdP session and subject → this service's session ids, for back-channel logout. */
  sessionIndex: {
    add(keys: readonly string[], sid: string, ttlMs: number): Promise<void>;
    members(key: string): Promise<string[]>;
    remove(keys: readonly string[], sid: string): Promise<void>;
  };
  /** True the first time `key` is seen within ttlMs; false on a replay. */
  firstUse(key: string, ttlMs: number): Promise<boolean>;
  /** Whether firstUse has seen `key` (and its time is not up); writes nothing. */
  used(key: string): Promise<boolean>;
}

export function createRedisOidcStores(deps: { redis: RedisClient; prefix: string; guard: Guard }): OidcStores {
  const { redis, prefix, guard } = deps;
  const idx = (key: string) => `${prefix}oidc-idx:{${key}}`;
  const jti = (key: string) => `${prefix}oidc-jti:{${key}}`;
  return {
    sessionIndex: {
      async add(keys, sid, ttlMs) {
        for (const key of keys) {
          await guard(() => redis.multi().sadd(idx(key), sid).pexpire(idx(key), positiveMs(ttlMs), 'GT').exec());
          // GT does not set a TTL on a key that has none (a fresh set): make sure it gets one.
          await guard(() => redis.pexpire(idx(key), positiveMs(ttlMs), 'NX'));
        }
      },
      members: (key) => guard(() => redis.smembers(idx(key))),
      async remove(keys, sid) {
        for (const key of keys) await guard(() => redis.srem(idx(key), sid));
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

export function createMemoryOidcStores(): OidcStores & { close(): void } {
  const idx = new ExpiringMap<Set<string>>();
  const used = new ExpiringMap<true>();
  return {
    sessionIndex: {
      async add(keys, sid, ttlMs) {
        for (const key of keys) idx.set(key, new Set([...(idx.get(key) ?? []), sid]), ttlMs);
      },
      async members(key) {
        return [...(idx.get(key) ?? [])];
      },
      async remove(keys, sid) {
        for (const key of keys) idx.get(key)?.delete(sid);
      },
    },
    async firstUse(key, ttlMs) {
      if (used.get(key)) return false;
      used.set(key, true, ttlMs);
      return true;
    },
    async used(key) {
      return used.get(key) === true;
    },
    close() {
      idx.close();
      used.close();
    },
  };
}
