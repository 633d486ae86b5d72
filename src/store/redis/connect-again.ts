import type { Logger } from '../../observability/logger.js';
import type { RedisClient } from './client.js';

/** How long after a client ended by itself it is connected again (a few times a second at most). */
const RESTART_DELAY_MS = 250;

/**
 * ioredis can give up on a client by itself (status "end", every command then "Connection is closed." for
 * good): a Sentinel client did when a lost connection's failover detector cut its reconnect (client.ts now
 * stops those detectors), over TLS about every other run of redis-tls-ha.test.ts. A client that ended
 * while `closing()` is false is connected again after a short pause, with one warning each time. Returns
 * the listener's removal, for a close that ends the client on purpose.
 */
export function connectAgainWhenEnded(
  client: RedisClient,
  closing: () => boolean,
  logger: Logger | undefined,
  connection?: string,
): () => void {
  const onEnd = (): void => {
    if (closing()) return;
    logger?.warn(
      { ...(connection && { redisConnection: connection }) },
      'redis client ended by itself; connecting again',
    );
    setTimeout(() => {
      if (!closing() && client.status === 'end') client.connect().catch(() => undefined);
    }, RESTART_DELAY_MS).unref();
  };
  client.on('end', onEnd);
  return () => client.off('end', onEnd);
}
