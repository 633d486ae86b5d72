import type { SessionKeys } from '../keys.js';
import type { RedisClient } from './client.js';
import type { Guard } from '../store-error.js';
import type { StoreCall } from '../store-call.js';
import { issuedFor } from './failover-wait.js';

/** The Redis commands behind the session store, on `<prefix>sess:{sid}` (one `{sid}` slot, as on Cluster). */
export interface SessionClient {
  /** `bypassCache`: read Redis even when the hot path has a session cache (session-store.ts). */
  get(sid: string, bypassCache?: boolean, call?: StoreCall): Promise<string | null>;
  /** SET with EX, as connect-redis wrote it. */
  set(sid: string, value: string, ttlSeconds: number): Promise<void>;
  /** 1 when the key existed and got the TTL, 0 otherwise. */
  expire(sid: string, ttlSeconds: number): Promise<number>;
  del(sid: string): Promise<void>;
}

export function createSessionClient(deps: { redis: RedisClient; keys: SessionKeys; guard: Guard }): SessionClient {
  const { redis, keys, guard } = deps;
  return {
    get: (sid, _bypassCache, call) => guard(() => issuedFor(call, () => redis.get(keys.session(sid)))),
    set: async (sid, value, ttlSeconds) => {
      await guard(() => redis.set(keys.session(sid), value, 'EX', ttlSeconds));
    },
    expire: (sid, ttlSeconds) => guard(() => redis.expire(keys.session(sid), ttlSeconds)),
    del: async (sid) => {
      await guard(() => redis.del(keys.session(sid)));
    },
  };
}
