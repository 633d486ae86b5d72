import type { DependencyFaults } from '../../observability/dependency-faults.js';
import type { Logger } from '../../observability/logger.js';
import type { RedisClient } from './client.js';

/**
 * How long start-up waits for Redis before it listens anyway. In Sentinel mode ioredis's connect() does
 * not settle while no sentinel answers (it retries them forever), so an unbounded wait would keep the
 * service from ever listening, and /readyz from saying why.
 */
const REDIS_STARTUP_WAIT_MS = 3000;

export async function connectOrGoOn(redis: RedisClient, logger: Logger, faults?: DependencyFaults): Promise<void> {
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
  const err =
    outcome === 'timeout'
      ? Object.assign(new Error(`no answer within ${REDIS_STARTUP_WAIT_MS} ms`), { code: 'ETIMEDOUT' })
      : outcome;
  // An expected fault is named (code, address, setting, hint) without its stack; anything else keeps it.
  const fault = faults?.note('redis', err);
  if (fault !== undefined)
    logger.warn(
      { ...fault, redisError: { message: (err as Error).message } },
      'redis not reachable at start-up; retrying',
    );
  else logger.warn({ err }, 'redis not reachable at start-up; retrying');
}
