import type { RedisClient } from './client.js';
import { createRedisDueQueue } from './due-queue.js';
import { secretDropsOver, type SecretDropStore } from '../secret-drops.js';
import type { Guard } from '../store-error.js';
import type { RedisKeys } from '../keys.js';

/** One sorted set, `<prefix>secret-drops`: members are encoded drops, scores the epoch ms they are due. */
export function createRedisSecretDrops(deps: { redis: RedisClient; keys: RedisKeys; guard: Guard }): SecretDropStore {
  return secretDropsOver(createRedisDueQueue({ redis: deps.redis, key: deps.keys.secretDrops(), guard: deps.guard }));
}
