import { afterAll, afterEach, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { Redis } from 'ioredis';
import { createLogger } from '../../../src/observability/logger.js';
import { createMetrics } from '../../../src/observability/metrics.js';
import { createRedisLeases } from '../../../src/quota/concurrency-leases.js';
import { createQuotaMetrics } from '../../../src/quota/quota-metrics.js';
import { createRateQuota } from '../../../src/quota/rate-quota.js';
import { createUserQuota } from '../../../src/quota/user-quota.js';
import { createRedisClient } from '../../../src/store/redis/client.js';
import { manualClock } from '../../helpers/clock.js';
import { freePort } from '../../helpers/ports.js';
import { deleteKeysWithPrefix, uniquePrefix } from '../../helpers/redis-prefix.js';
import { until } from '../../helpers/wait.js';

/**
 * Lease deadlines are on the caller's clock, which these tests move by hand; Redis also expires a counter's
 * key leaseMs after its last write, in real time, so the lease is long enough never to run out that way.
 */
const LEASE_MS = 60_000;

describe('in-flight leases in Redis', () => {
  let redis: Redis;
  const prefix = uniquePrefix('leases');
  beforeAll(() => {
    redis = new Redis('redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    await deleteKeysWithPrefix(redis, prefix);
    redis.disconnect();
  });

  const counters = (key: string, max: number) => [{ key: `${prefix}${key}`, max }];
  const failures = { count: 0 };
  const leases = (instanceId: string, now: () => number) =>
    createRedisLeases(redis, { leaseMs: LEASE_MS, instanceId, now, onStoreFailure: () => failures.count++ });
  afterEach(() => {
    jest.useRealTimers();
  });

  test('when an instance dies holding leases, then its slots come back within the lease time, not before', async () => {
    const clock = manualClock();
    const dead = leases('dead', clock.now);
    const alive = leases('alive', clock.now);
    expect((await dead.acquire(counters('a', 2))).admitted).toBe(true);
    expect((await dead.acquire(counters('a', 2))).admitted).toBe(true);
    dead.close(); // a SIGKILL: no release, no renewal from here on
    expect(await alive.acquire(counters('a', 2))).toEqual({ admitted: false, full: 0 });
    // Not before: a moment short of the lease time both slots are still taken.
    clock.advance(LEASE_MS - 1);
    expect(await alive.acquire(counters('a', 2))).toEqual({ admitted: false, full: 0 });
    // Within it: at the lease time they are free again, though nobody released them.
    clock.advance(1);
    const lease = await alive.acquire(counters('a', 2));
    expect(lease.admitted).toBe(true);
    if (lease.admitted) lease.release();
    alive.close();
  });

  test('when a request outlasts its lease, then its instance renews it and the slot stays taken', async () => {
    // Renewals run on a timer (every third of the lease): fake timers move it and the clock together.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const now = () => Date.now();
    const holder = leases('holder', now);
    const other = leases('other', now);
    const lease = await holder.acquire(counters('b', 1));
    expect(lease.admitted).toBe(true);
    // Three lease times later it is still held: renewals (every third of a lease) kept it.
    for (let i = 0; i < 6; i++) {
      await jest.advanceTimersByTimeAsync(LEASE_MS / 2);
      // The renewal this step's timer sent reaches Redis first (one connection, commands in order).
      expect(await other.acquire(counters('b', 1))).toEqual({ admitted: false, full: 0 });
    }
    if (lease.admitted) lease.release();
    jest.useRealTimers();
    await until('the release to reach Redis', async () => (await redis.zcard(`${prefix}b`)) === 0);
    const next = await other.acquire(counters('b', 1));
    expect(next.admitted).toBe(true);
    if (next.admitted) next.release();
    expect(holder.held).toBe(0);
    holder.close();
    other.close();
  });

  test('when two counters are entered together and the second is full, then neither is taken', async () => {
    const l = leases('pair', Date.now);
    const both = [
      { key: `${prefix}{p}`, max: 5 },
      { key: `${prefix}{p}:rule`, max: 1 },
    ];
    const first = await l.acquire(both);
    expect(first.admitted).toBe(true);
    expect(await l.acquire(both)).toEqual({ admitted: false, full: 1 });
    expect(await redis.zcard(`${prefix}{p}`)).toBe(1);
    if (first.admitted) first.release();
    await until('the release to reach Redis', async () => (await redis.zcard(`${prefix}{p}`)) === 0);
    expect(await redis.zcard(`${prefix}{p}:rule`)).toBe(0);
    l.close();
  });
});

describe('when Redis cannot be reached', () => {
  test('then the rate quota counts on this instance (the documented open direction) and reports each failure', async () => {
    const redis = createRedisClient({
      mode: 'standalone',
      url: `redis://127.0.0.1:${await freePort()}`,
      commandTimeoutMs: 200,
    });
    redis.on('error', () => undefined);
    redis.connect().catch(() => undefined);
    let failures = 0;
    const quota = createRateQuota({
      limits: { rate: 2, windowSec: 60, burst: 0, burstWindowSec: 10, concurrency: 0 },
      redis,
      keyPrefix: 'test:down:quota:default',
      onStoreFailure: () => failures++,
    });
    const verdicts = [await quota.consume('p'), await quota.consume('p'), await quota.consume('p')];
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, false]);
    expect(failures).toBe(3);
    redis.disconnect();
  });

  test('then the in-flight cap counts on this instance too, and the failure is counted by op, not by user', async () => {
    const redis = createRedisClient({
      mode: 'standalone',
      url: `redis://127.0.0.1:${await freePort()}`,
      commandTimeoutMs: 200,
    });
    redis.on('error', () => undefined);
    redis.connect().catch(() => undefined);
    const metrics = createMetrics({ defaultMetrics: false });
    const quota = createUserQuota({
      policy: {
        defaults: { rate: 0, windowSec: 1, burst: 0, burstWindowSec: 10, concurrency: 1 },
        rules: [],
        leaseMs: 5000,
      },
      redis,
      prefix: 'test:down:',
      mount: '/api',
      instanceId: 'i1',
      metrics: createQuotaMetrics(metrics.registry),
      logger: createLogger({ level: 'silent' }),
    });
    const end = await quota.admit('principal', '/api/echo');
    await expect(quota.admit('principal', '/api/echo')).rejects.toMatchObject({ code: 'too_many_requests' });
    end();
    const again = await quota.admit('principal', '/api/echo');
    again();
    const text = await metrics.registry.getSingleMetricAsString('tgbff_quota_store_failures_total');
    expect(text).toMatch(/op="acquire"} 3/);
    expect(text).not.toContain('principal');
    quota.close();
    redis.disconnect();
  });
});
