/**
 * Judges timing around one Redis stall (DEBUG SLEEP) a little longer than the command timeout
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { AppError } from '../../../src/errors.js';
import { createLogger } from '../../../src/observability/logger.js';
import type { Stores } from '../../../src/store/types.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { storesOnOwnRedis } from './frozen-timing.js';
import { until } from '../../helpers/wait.js';

// Longer than the default (800 ms), so each margin below is a second: wide enough for a test process that
// waits for the CPU.
const COMMAND_TIMEOUT_MS = 2000;
// Redis sleeps 1.5 command timeouts; the stores' steps go out as it begins, so they time out at one (half a
// timeout before Redis wakes) and the connection stays silent until two unless Redis answers on it, which it
// does from 1.5 (half a timeout before the silence would run out by itself).
const STALL_S = (1.5 * COMMAND_TIMEOUT_MS) / 1000;
const BURST = 30;

/** A store step's outcome: 'ok', or the code of the AppError the stores answered (store_unavailable). */
const outcome = (op: Promise<unknown>): Promise<string> =>
  op.then(
    () => 'ok',
    (err: unknown) => (err instanceof AppError ? err.code : String(err)),
  );

/**
 * A Redis that stalls once (a slow command, a starved process on a loaded host) is not a frozen one: the
 * steps it held fail at the command timeout, and the connection is silent only until Redis answers on it
 * again, so a burst of requests after the stall is served, not refused for up to another timeout. The
 * silence's warning names the connection and the command that timed out, never its arguments.
 */
describe('a Redis that stalls once a little past the command timeout', () => {
  let redis: RedisServer;
  let staller: Redis;
  let stores: Stores;
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];

  beforeAll(async () => {
    redis = await startRedisServer({ args: ['--enable-debug-command', 'yes'] });
    staller = new Redis(redis.port, '127.0.0.1', { maxRetriesPerRequest: 0 });
    staller.on('error', () => undefined);
    await staller.ping(); // connected: its DEBUG SLEEP below is written at once
    stores = await storesOnOwnRedis(
      redis.url,
      'stall1:',
      COMMAND_TIMEOUT_MS,
      createLogger({
        level: 'info',
        destination: {
          write: (line: string) => {
            raw.push(line);
            lines.push(JSON.parse(line) as Record<string, unknown>);
          },
        },
      }),
    );
  });
  afterAll(async () => {
    staller?.disconnect();
    await stores?.close();
    await redis?.stop();
  });

  test('when Redis stalls once, then the steps it held fail at the timeout, one warning names the connection and the command, and a burst once Redis answers again is served', async () => {
    const key = `guess:${randomBytes(4).toString('hex')}`;
    const hit = () => stores.rateLimiter.hit(key, 1000, 60_000);
    expect(await outcome(hit())).toBe('ok');

    // The DEBUG SLEEP is written to its connection before the steps to theirs, so Redis, which reads its
    // clients in the order their bytes arrived, runs it first and holds the steps for its whole length.
    const stall = staller.call('DEBUG', 'SLEEP', String(STALL_S));
    // Held by the stall: each times out (the later ones restart the silence, none is refused: all were sent).
    const startedAt = performance.now();
    const held = await Promise.all(Array.from({ length: BURST }, () => outcome(hit())));
    const heldMs = performance.now() - startedAt;
    expect(held).toEqual(held.map(() => 'store_unavailable'));
    expect(heldMs).toBeGreaterThanOrEqual(COMMAND_TIMEOUT_MS - 50);
    await stall;
    // Redis answers the held steps right after it wakes, which ends the silence.
    await until('the connection to be no longer silent', () =>
      lines.some((l) => l.msg === 'redis connection no longer silent'),
    );
    const burst = await Promise.all(Array.from({ length: BURST }, () => outcome(hit())));
    expect(burst).toEqual(burst.map(() => 'ok'));

    const began = lines.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('redis command timed out'));
    expect(began).toHaveLength(1);
    expect(began[0]).toMatchObject({
      level: 40,
      redisConnection: 'main',
      command: 'evalsha',
      timeoutMs: COMMAND_TIMEOUT_MS,
    });
    // Redis really had not answered: the timed-out command was still waiting on the connection.
    expect(began[0]!.inFlight).toBeGreaterThanOrEqual(1);
    expect(lines.filter((l) => l.msg === 'redis connection no longer silent')).toEqual([
      expect.objectContaining({ redisConnection: 'main', ended: 'answered', refused: 0 }),
    ]);
    // Never the command's arguments: keys hold session ids.
    expect(raw.filter((l) => l.includes(key))).toEqual([]);
  });
});
