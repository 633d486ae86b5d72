import { createHash } from 'node:crypto';
import type { RedisClient } from './client.js';

export interface RedisScript {
  run(redis: RedisClient, keys: string[], args: Array<string | number>): Promise<unknown>;
}

/**
 * A Lua script sent by SHA, with the full text only when the server does not know it (first use, or
 * after a restart emptied the script cache). Avoids defineCommand, which would mutate a shared client.
 */
export function redisScript(source: string): RedisScript {
  const sha = createHash('sha1').update(source).digest('hex');
  return {
    async run(redis, keys, args) {
      try {
        return await redis.evalsha(sha, keys.length, ...keys, ...args);
      } catch (err) {
        if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
        return redis.eval(source, keys.length, ...keys, ...args);
      }
    },
  };
}
