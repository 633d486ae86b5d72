import type { DueQueue } from '../due-queue.js';
import type { RedisClient } from './client.js';
import { redisScript } from './script.js';
import type { Guard } from '../store-error.js';

// Read the due members and push their scores past the claim window in one step, so two sweepers
// (or a sweeper whose lease lapsed) can never take the same member at the same time.
const CLAIM = redisScript(`
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], 'XX', ARGV[2], member) end
return due`);

/**
 * One sorted set under `key`: members as given, scores the epoch ms they are due. A single key, so it
 * needs no hash tag on Cluster (it lives in one slot, whatever the members name).
 */
export function createRedisDueQueue(deps: { redis: RedisClient; key: string; guard: Guard }): DueQueue {
  const { redis, key, guard } = deps;
  return {
    async add(member, dueAt) {
      await guard(() => redis.zadd(key, dueAt, member));
    },
    async reschedule(member, dueAt) {
      await guard(() => redis.zadd(key, 'XX', dueAt, member));
    },
    async remove(...members) {
      if (members.length > 0) await guard(() => redis.zrem(key, ...members));
    },
    async claimDue(now, claimMs, limit) {
      return (await guard(() => CLAIM.run(redis, [key], [now, now + claimMs, limit]))) as string[];
    },
  };
}
