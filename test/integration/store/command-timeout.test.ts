import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Redis } from 'ioredis';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { replyBeforeTimeout } from '../../../src/store/redis/command-timeout.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { until, WAIT_MS } from '../../helpers/wait.js';

const TIMEOUT_MS = 200;

/** Holds this process's event loop for `ms`, as a burst of work on a loaded machine does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    /* the reply arrives in the socket meanwhile, unread */
  }
}

/**
 * Bytes received but not yet read on this process's established loopback TCP connection from `localPort` to
 * `remotePort` (Linux, /proc/net/tcp; state 01 is ESTABLISHED). Both ends and the state are matched: on a
 * busy machine an earlier connection from the same local port, to another server, lingers in TIME_WAIT
 * (matched on the local port alone, it read 0 and failed a CI run).
 */
function unread(localPort: number, remotePort: number): number {
  const hex = (port: number) => `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[1]?.endsWith(hex(localPort)) && fields[2]?.endsWith(hex(remotePort)) && fields[3] === '01')
      return parseInt(fields[4]!.split(':')[1]!, 16);
  }
  return 0;
}

/**
 * Holds the loop `ms`, and past that until `bytes` of reply wait unread in the client's socket: on a loaded
 * machine Redis may not have answered within `ms`, and then there is no waiting reply to test. Fails if the
 * reply never comes within WAIT_MS (a deadline to keep trying, not a timing claim).
 */
function busyUntilReplied(redis: Redis, bytes: number, ms: number): void {
  const { localPort, remotePort } = redis.stream;
  const giveUp = performance.now() + WAIT_MS;
  busy(ms);
  while (unread(localPort!, remotePort!) < bytes) {
    if (performance.now() > giveUp)
      throw new Error(`no ${bytes}-byte reply arrived in the socket within ${WAIT_MS} ms`);
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
    // Connected and answering: on a loaded machine a PING can itself miss the 200 ms timeout; it is tried again.
    await until('the client to connect and answer a PING', () => redis.ping());
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
    busyUntilReplied(redis, 5, TIMEOUT_MS * 2);
    expect(await reply).toBe('Command timed out');
  });

  test('when the loop is held past the timeout while the reply waits in the socket, then the command is answered', async () => {
    const redis = await client(true);
    const replies = Array.from({ length: 20 }, (_, i) => outcome(redis.get(`command-timeout:${i}`)));
    // Twenty "$-1\r\n" (no such key): the whole reply is in the socket before the loop is let go.
    busyUntilReplied(redis, 20 * 5, TIMEOUT_MS * 2);
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
