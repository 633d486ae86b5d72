import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Redis } from 'ioredis';
import { performance } from 'node:perf_hooks';
import { replyBeforeTimeout } from '../../../src/store/redis/command-timeout.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';

const TIMEOUT_MS = 200;

/** Holds this process's event loop for `ms`, as a burst of work on a loaded machine does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    /* the reply arrives in the socket meanwhile, unread */
  }
}

async function outcome(command: Promise<unknown>): Promise<string> {
  return command.then(
    () => 'answered',
    (err: Error) => err.message,
  );
}

// A private redis-server (one test freezes it).
describe('the Redis command timeout when the event loop is held up', () => {
  let server: RedisServer;
  const clients: Redis[] = [];
  const client = async (patched: boolean) => {
    const redis = new Redis(server.port, '127.0.0.1', { commandTimeout: TIMEOUT_MS, maxRetriesPerRequest: 0 });
    redis.on('error', () => undefined);
    clients.push(redis);
    if (patched) replyBeforeTimeout(redis);
    await redis.ping();
    return redis;
  };
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const redis of clients) redis.disconnect();
    await server?.stop();
  });

  test('when the loop is held past the timeout while the reply waits in the socket, then ioredis alone fails the command', async () => {
    // The set-up this guards against, shown on the plain client: Redis answered, the timer won anyway.
    const redis = await client(false);
    const reply = outcome(redis.get('command-timeout:x'));
    busy(TIMEOUT_MS * 2);
    expect(await reply).toBe('Command timed out');
  });

  test('when the loop is held past the timeout while the reply waits in the socket, then the command is answered', async () => {
    const redis = await client(true);
    const replies = Array.from({ length: 20 }, (_, i) => outcome(redis.get(`command-timeout:${i}`)));
    busy(TIMEOUT_MS * 2);
    expect(await Promise.all(replies)).toEqual(replies.map(() => 'answered'));
  });

  test('when Redis is frozen, then the command still fails at the timeout', async () => {
    const redis = await client(true);
    server.pause();
    try {
      const started = performance.now();
      expect(await outcome(redis.get('command-timeout:frozen'))).toBe('Command timed out');
      const took = performance.now() - started;
      expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
      expect(took).toBeLessThan(TIMEOUT_MS + 500);
    } finally {
      server.resume();
    }
  });
});
