import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { deleteKeysWithPrefix } from '../../helpers/redis-prefix.js';

/** What every hostile-suite service process runs with: the machine's Redis under its own prefix, fresh keys. */
export function processEnv(prefix: string): Record<string, string> {
  return {
    NODE_ENV: 'test',
    REDIS_URL: 'redis://127.0.0.1:6379',
    REDIS_PREFIX: prefix,
    SESSION_SECRET: randomBytes(32).toString('hex'),
    SESSION_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    COOKIE_SECURE: 'false',
    LOG_FLUSH_MS: '0',
  };
}

/** Removes what a suite's processes left under its prefix. */
export async function dropPrefix(prefix: string): Promise<void> {
  const redis = new Redis('redis://127.0.0.1:6379');
  await deleteKeysWithPrefix(redis, prefix).catch(() => undefined);
  redis.disconnect();
}
