import type { SessionKeys } from '../keys.js';
import type { RedisClient } from './client.js';
import { redisScript } from './script.js';
import type { Guard } from '../store-error.js';
import { positiveMs } from '../ttl.js';
import type { CredentialSessions } from '../types.js';

// One key, so one slot on Cluster whatever the session ids are. The set's TTL follows its newest login
// (every session on record ends by then: the TTL is the absolute timeout), and it never holds more than
// the ceiling: the oldest beyond it are dropped here, after being named to the caller with the rest.
const ADD = redisScript(`
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local n = redis.call('ZCARD', KEYS[1])
if n <= tonumber(ARGV[4]) then return {} end
local all = redis.call('ZRANGE', KEYS[1], 0, -1)
local ceiling = tonumber(ARGV[5])
if n > ceiling then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, n - ceiling - 1) end
return all`);

/** `<prefix>creds:{<credential id>}`: a sorted set of session ids scored by login time. */
export function createRedisCredentialSessions(deps: {
  redis: RedisClient;
  keys: SessionKeys;
  guard: Guard;
}): CredentialSessions {
  const { redis, keys, guard } = deps;
  return {
    async add(credential, sid, at, limits) {
      const args = [at, sid, positiveMs(limits.ttlMs), limits.cap, Math.max(limits.cap, limits.ceiling)];
      return (await guard(() => ADD.run(redis, [keys.credentialSessions(credential)], args))) as string[];
    },
    async remove(credential, sids) {
      if (sids.length > 0) await guard(() => redis.zrem(keys.credentialSessions(credential), ...sids));
    },
  };
}
