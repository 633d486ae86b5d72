import { setTimeout as sleep } from 'node:timers/promises';
import type { SessionKeys } from '../keys.js';
import type { RedisClient } from './client.js';
import { redisScript } from './script.js';
import type { Guard } from '../store-error.js';
import { positiveMs } from '../ttl.js';
import type { LeaseStore } from '../types.js';

// Compare-and-act in Lua: a holder whose lease lapsed must not extend or delete the next holder's lease.
const RENEW = redisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`);
const RELEASE = redisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`);

const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 100;

export function createRedisLeaseStore(deps: { redis: RedisClient; keys: SessionKeys; guard: Guard }): LeaseStore {
  const { redis, keys, guard } = deps;
  return {
    async acquire(sid, owner, ttlMs) {
      const reply = await guard(() => redis.set(keys.lease(sid), owner, 'PX', positiveMs(ttlMs), 'NX'));
      return reply === 'OK';
    },
    async renew(sid, owner, ttlMs) {
      return (await guard(() => RENEW.run(redis, [keys.lease(sid)], [owner, positiveMs(ttlMs)]))) === 1;
    },
    async release(sid, owner) {
      return (await guard(() => RELEASE.run(redis, [keys.lease(sid)], [owner]))) === 1;
    },
    // Polling rather than pub/sub: a refresh takes one upstream round trip, so a few cheap PTTLs per
    // wait cost less than a dedicated subscriber connection per instance, and work on Cluster as is.
    async waitForRelease(sid, maxWaitMs) {
      const deadline = Date.now() + maxWaitMs;
      let pause = FIRST_POLL_MS;
      for (;;) {
        const pttl = await guard(() => redis.pttl(keys.lease(sid)));
        const remaining = deadline - Date.now();
        if (pttl === -2 || remaining <= 0) return;
        // A lease without expiry cannot come from acquire; poll it anyway rather than trust it.
        const untilLapse = pttl > 0 ? pttl : pause;
        await sleep(Math.min(pause, untilLapse, remaining));
        pause = Math.min(pause * 2, MAX_POLL_MS);
      }
    },
  };
}
