import type { RedisClient } from './redis.js';
import { redisScript } from './redis-script.js';
import { decodeDrop, encodeDrop, type SecretDropStore } from './secret-drops.js';
import type { Guard } from './store-error.js';

// Read the due members and push their scores past the claim window in one step, so two sweepers
// (or a sweeper whose lease lapsed) can never take the same member at the same time.
const CLAIM = redisScript(`
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], 'XX', ARGV[2], member) end
return due`);

/**
 * One sorted set, `<prefix>secret-drops`: members are encoded drops, scores the epoch ms they are due.
 * A single key, so it needs no hash tag on Cluster.
 */
export function createRedisSecretDrops(deps: { redis: RedisClient; prefix: string; guard: Guard }): SecretDropStore {
  const { redis, guard } = deps;
  const key = `${deps.prefix}secret-drops`;
  return {
    async add(drop, dueAt) {
      await guard(() => redis.zadd(key, dueAt, encodeDrop(drop)));
    },
    async reschedule(drop, dueAt) {
      await guard(() => redis.zadd(key, 'XX', dueAt, encodeDrop(drop)));
    },
    async remove(drop) {
      await guard(() => redis.zrem(key, encodeDrop(drop)));
    },
    async claimDue(now, claimMs, limit) {
      const members = (await guard(() => CLAIM.run(redis, [key], [now, now + claimMs, limit]))) as string[];
      const drops = members.map((m) => ({ member: m, drop: decodeDrop(m) }));
      // Only this service writes the set; a member it cannot read would otherwise come back forever.
      const junk = drops.filter((d) => d.drop === undefined).map((d) => d.member);
      if (junk.length > 0) await guard(() => redis.zrem(key, ...junk));
      return drops.flatMap((d) => d.drop ?? []);
    },
  };
}
