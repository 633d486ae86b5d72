import type { SessionKeys } from '../keys.js';
import type { RedisClient } from './client.js';
import { redisScript } from './script.js';
import type { Guard } from '../store-error.js';
import { positiveMs } from '../ttl.js';
import type { RateLimiter } from '../types.js';

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

// A hash {n = counted hits, until = epoch ms the wait ends}. The clock is the caller's, so the script
// stays deterministic (replicated as a script on old Redis too).
const BACKOFF = redisScript(`
local now = tonumber(ARGV[1])
local untilMs = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
if untilMs > now then return {0, untilMs - now} end
local n = redis.call('HINCRBY', KEYS[1], 'n', 1)
local free = tonumber(ARGV[2])
local wait = 0
if n >= free then
  wait = math.floor(math.min(tonumber(ARGV[4]), tonumber(ARGV[3]) * 2 ^ (n - free)))
  redis.call('HSET', KEYS[1], 'until', string.format('%d', now + wait))
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[5]) + wait)
return {1, 0}`);

const UNHIT = redisScript(`
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'string' then
  if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
elseif kind == 'hash' then
  if tonumber(redis.call('HGET', KEYS[1], 'n') or '0') > 0 then redis.call('HINCRBY', KEYS[1], 'n', -1) end
  redis.call('HDEL', KEYS[1], 'until')
end
return 0`);

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
    async backoff(key, policy) {
      const args = [Date.now(), policy.free, policy.baseMs, policy.maxMs, positiveMs(policy.forgetMs)];
      const [allowed, waitMs] = (await guard(() => BACKOFF.run(redis, [keys.rateLimit(key)], args))) as [
        number,
        number,
      ];
      return allowed === 1 ? { allowed: true, retryAfterMs: 0 } : { allowed: false, retryAfterMs: Math.max(1, waitMs) };
    },
    async unhit(key) {
      await guard(() => UNHIT.run(redis, [keys.rateLimit(key)], []));
    },
    async reset(key) {
      await guard(() => redis.del(keys.rateLimit(key)));
    },
  };
}
