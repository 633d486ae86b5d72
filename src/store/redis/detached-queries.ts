import type { DetachedQueryStore } from '../detached-queries.js';
import type { RedisKeys } from '../keys.js';
import type { Guard } from '../store-error.js';
import type { RedisClient } from './client.js';
import { redisScript } from './script.js';

// Expired ids out, then the count: one round trip, one key.
const COUNT = redisScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZCARD', KEYS[1])`);

// The id with its expiry as score; beyond the ceiling the soonest to expire (the oldest) go; the key lives as
// long as its newest id.
const RECORD = redisScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
if over > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, over - 1) end
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
return 1`);

/**
 * One sorted set per principal, `<prefix>detached:{<principal id>}`: members the request ids, scores the epoch
 * ms each expires. One key per operation, so its `{…}` tag only keeps a principal's keys together on Cluster.
 */
export function createRedisDetachedQueries(deps: {
  redis: RedisClient;
  keys: RedisKeys;
  guard: Guard;
}): DetachedQueryStore {
  const { redis, keys, guard } = deps;
  return {
    async count(principal, now) {
      return Number(await guard(() => COUNT.run(redis, [keys.detachedQueries(principal)], [now])));
    },
    async record(principal, id, now, limits) {
      const key = keys.detachedQueries(principal);
      await guard(() => RECORD.run(redis, [key], [now, now + limits.ttlMs, id, limits.ceiling]));
    },
    async owned(principal, ids, now) {
      if (ids.length === 0) return new Set();
      const scores = await guard(() => redis.zmscore(keys.detachedQueries(principal), ...ids));
      const mine = new Set<string>();
      ids.forEach((id, i) => {
        const score = scores[i];
        if (score !== null && score !== undefined && Number(score) > now) mine.add(id);
      });
      return mine;
    },
    async list(principal, now) {
      return guard(() => redis.zrangebyscore(keys.detachedQueries(principal), `(${now}`, '+inf'));
    },
  };
}
