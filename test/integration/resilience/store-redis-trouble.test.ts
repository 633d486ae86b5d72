import { randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '../../../src/errors.js';
import { createMetrics, type Metrics } from '../../../src/observability/metrics.js';
import { createLogger } from '../../../src/observability/logger.js';
import { createRedisStores } from '../../../src/store/create-stores.js';
import { createCipher } from '../../../src/crypto/crypto.js';
import { createRedisClient, type RedisClient } from '../../../src/store/redis/client.js';
import type { Stores } from '../../../src/store/types.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { sessionExpiringIn } from '../../helpers/session-records.js';
import { until } from '../../helpers/wait.js';

// A private redis-server: these tests kill and freeze it, which the shared one must never see.
// Above the default (800 ms): a Redis that is up must answer every method within it, on a loaded machine too.
const COMMAND_TIMEOUT_MS = 2000;
// A hung Redis fails each method by its command timeout: halfway between one timeout and two, as
// frozen-one-timeout.test.ts judges it.
const HUNG_BOUND_MS = 1.5 * COMMAND_TIMEOUT_MS;
// A refused connection fails each method at once, whatever the command timeout.
const REFUSED_BOUND_MS = 1_500;
let server: RedisServer;
let redis: RedisClient;
let stores: Stores;
let metrics: Metrics;
const logLines: Array<{ level: number; msg: string }> = [];

beforeAll(async () => {
  server = await startRedisServer();
  const logger = createLogger({
    level: 'info',
    destination: { write: (line: string) => void logLines.push(JSON.parse(line)) },
  });
  redis = createRedisClient({ mode: 'standalone', url: server.url, commandTimeoutMs: COMMAND_TIMEOUT_MS }, { logger });
  await redis.connect();
  metrics = createMetrics({ defaultMetrics: false });
  stores = createRedisStores({
    redis,
    prefix: 'trouble:',
    cipher: createCipher([{ id: 'k', key: randomBytes(32) }]),
    metrics,
  });
});
afterAll(async () => {
  await stores.close();
  await server.stop();
});

/** Every Redis-backed method the service calls, each on a fresh session id. */
function everyMethod(): Array<[string, () => Promise<unknown>]> {
  const sid = randomUUID();
  const session = stores.sessionStore;
  return [
    ['tokens.get', () => stores.tokens.get(sid)],
    ['tokens.set', () => stores.tokens.set(sid, { token: 't', expiresAt: 2_000_000_000, version: 1 }, 10_000)],
    ['tokens.deleteIfToken', () => stores.tokens.deleteIfToken(sid, 't')],
    ['tokens.delete', () => stores.tokens.delete(sid)],
    ['leases.acquire', () => stores.leases.acquire(sid, 'o', 10_000)],
    ['leases.renew', () => stores.leases.renew(sid, 'o', 10_000)],
    ['leases.release', () => stores.leases.release(sid, 'o')],
    ['leases.waitForRelease', () => stores.leases.waitForRelease(sid, 100)],
    ['tombstones.mark', () => stores.tombstones.mark(sid, 10_000)],
    ['tombstones.isDead', () => stores.tombstones.isDead(sid)],
    ['rateLimiter.hit', () => stores.rateLimiter.hit(`ip:${sid}`, 5, 10_000)],
    ['rateLimiter.reset', () => stores.rateLimiter.reset(`ip:${sid}`)],
    ['session.set', () => session.set(sid, sessionExpiringIn(10_000))],
    ['session.get', () => session.get(sid)],
    ['session.touch', () => session.touch(sid, sessionExpiringIn(10_000))],
    ['session.destroy', () => session.destroy(sid)],
    ['ping', () => stores.ping()],
  ];
}

/** Runs every method at once; reports per method what it settled with and how long it took. */
async function outcomes(): Promise<
  Array<{ name: string; code: string; status?: number; retryAfter?: string; ms: number }>
> {
  return Promise.all(
    everyMethod().map(async ([name, call]) => {
      const started = Date.now();
      try {
        await call();
        return { name, code: 'ok', ms: Date.now() - started };
      } catch (err) {
        const app = err instanceof AppError ? err : undefined;
        return {
          name,
          code: app?.code ?? String(err),
          status: app?.status,
          retryAfter: app?.headers['Retry-After'],
          ms: Date.now() - started,
        };
      }
    }),
  );
}

function expectAllUnavailableWithin(results: Awaited<ReturnType<typeof outcomes>>, ms: number): void {
  for (const result of results) {
    expect(result).toEqual({
      name: result.name,
      code: 'store_unavailable',
      status: 503,
      retryAfter: '1',
      ms: expect.any(Number),
    });
    expect(result.ms).toBeLessThan(ms);
  }
}

function expectAllOk(results: Awaited<ReturnType<typeof outcomes>>): void {
  expect(results.filter((r) => r.code !== 'ok')).toEqual([]);
}

/** Until the stores' readiness ping answers (a failed ping counts as "not yet"). */
async function untilPingWorks(): Promise<void> {
  await until('a ping to work', async () => (await stores.ping(), true), { intervalMs: 100 });
}

test('when Redis is up, then every method works', async () => {
  expectAllOk(await outcomes());
});

test('when Redis is killed, then every method rejects with store_unavailable quickly, counted and logged once', async () => {
  const errorsBefore = (await metrics.redisErrors.get()).values[0]?.value ?? 0;
  let reconnects = 0;
  const counting = () => void (reconnects += 1);
  redis.on('reconnecting', counting);
  await server.kill();
  const results = await outcomes();
  expectAllUnavailableWithin(results, REFUSED_BOUND_MS);
  // Several reconnect attempts fail meanwhile: the client keeps trying, and logs nothing more for them.
  const after = reconnects;
  await until('three more reconnect attempts', () => reconnects >= after + 3);
  redis.off('reconnecting', counting);
  expectAllUnavailableWithin(await outcomes(), REFUSED_BOUND_MS);
  const errorsAfter = (await metrics.redisErrors.get()).values[0]?.value ?? 0;
  expect(errorsAfter - errorsBefore).toBe(2 * results.length);
  expect(logLines.filter((line) => line.msg === 'redis unavailable; reconnecting')).toHaveLength(1);
});

test('when Redis comes back, then the same client recovers by itself and every method works', async () => {
  await server.restart();
  await untilPingWorks();
  expectAllOk(await outcomes());
  expect(logLines.filter((line) => line.msg === 'redis connection restored')).toHaveLength(1);
});

test('when Redis hangs (SIGSTOP), then every method rejects with store_unavailable within the command timeout', async () => {
  server.pause();
  try {
    expectAllUnavailableWithin(await outcomes(), HUNG_BOUND_MS);
  } finally {
    server.resume();
  }
});

test('when the hung Redis continues, then every method works again on the same client', async () => {
  await untilPingWorks();
  expectAllOk(await outcomes());
});

test('when Redis is down at start-up, then connect rejects, methods fail fast, and the client connects once Redis starts', async () => {
  await server.kill();
  const late = createRedisClient({ mode: 'standalone', url: server.url, maxReconnectDelayMs: 200 });
  const lateStores = createRedisStores({
    redis: late,
    prefix: 'trouble-late:',
    cipher: createCipher([{ id: 'k', key: randomBytes(32) }]),
  });
  try {
    await expect(late.connect()).rejects.toThrow();
    const started = Date.now();
    await expect(lateStores.tombstones.isDead('x')).rejects.toMatchObject({ code: 'store_unavailable', status: 503 });
    expect(Date.now() - started).toBeLessThan(REFUSED_BOUND_MS);
    await server.restart();
    await until('the late client to connect', () => late.status === 'ready');
    await expect(lateStores.tombstones.isDead('x')).resolves.toBe(false);
  } finally {
    await lateStores.close();
  }
});

test('when Redis is unreachable, then a load fails as store_unavailable rather than looking logged out', async () => {
  const broken = createRedisClient({ mode: 'standalone', url: 'redis://127.0.0.1:1', connectTimeoutMs: 200 });
  const down = createRedisStores({
    redis: broken,
    prefix: 'unreachable:',
    cipher: createCipher([{ id: 'k', key: randomBytes(32) }]),
    sessionHotPath: { touchFraction: 0.01, maxTouchSkipMs: 60_000 },
  });
  await expect(down.sessionStore.get('any')).rejects.toMatchObject({ code: 'store_unavailable', status: 503 });
  await down.close();
});
