import type { Logger } from '../../observability/logger.js';
import type { RedisClient } from './client.js';

/**
 * How long start-up waits for Redis before it listens anyway. In Sentinel mode ioredis's connect() does
 * not settle while no sentinel answers (it retries them forever), so an unbounded wait would keep the
 * service from ever listening, and /readyz from saying why.
 */
const REDIS_STARTUP_WAIT_MS = 3000;

export async function connectOrGoOn(redis: RedisClient, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), REDIS_STARTUP_WAIT_MS);
  });
  // Caught here, so a rejection that comes after the wait is not an unhandled one.
  const connected = redis.connect().then(
    () => 'connected' as const,
    (err: unknown) => err,
  );
  const outcome = await Promise.race([connected, gaveUp]);
  clearTimeout(timer);
  if (outcome === 'connected') return;
  const err = outcome === 'timeout' ? { message: `no answer within ${REDIS_STARTUP_WAIT_MS} ms` } : outcome;
  logger.warn({ err }, 'redis not reachable at start-up; retrying');
}
