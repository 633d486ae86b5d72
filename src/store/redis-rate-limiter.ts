import type { SessionKeys } from './keys.js';
import type { RedisClient } from './redis.js';
import { redisScript } from './redis-script.js';
import type { Guard } from './store-error.js';
import { positiveMs } from './ttl.js';
import type { RateLimiter } from './types.js';

// Count and window start in one step; the window is set only when missing, so hits never extend it.
// (Checked with PTTL rather than PEXPIRE NX, which needs Redis 7 and managed Redis is often older.)
const HIT = redisScript(`
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}`);

export function createRedisRateLimiter(deps: { redis: RedisClient; keys: SessionKeys; guard: Guard }): RateLimiter {
  const { redis, keys, guard } = deps;
  return {
    async hit(key, max, windowMs) {
      const [count, ttl] = (await guard(() => HIT.run(redis, [keys.rateLimit(key)], [positiveMs(windowMs)]))) as [
        number,
        number,
      ];
      const allowed = count <= max;
      return { allowed, retryAfterMs: allowed ? 0 : ttl };
    },
    async reset(key) {
      await guard(() => redis.del(keys.rateLimit(key)));
    },
  };
}
