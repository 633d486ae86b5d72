import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Redis } from 'ioredis';
import { createLogger } from '../../../src/observability/logger.js';
import { createMetrics } from '../../../src/observability/metrics.js';
import { createRedisLeases } from '../../../src/quota/concurrency-leases.js';
import { createQuotaMetrics } from '../../../src/quota/quota-metrics.js';
import { createRateQuota } from '../../../src/quota/rate-quota.js';
import { createUserQuota } from '../../../src/quota/user-quota.js';
import { createRedisClient } from '../../../src/store/redis/client.js';
import { freePort } from '../../helpers/ports.js';
import { deleteKeysWithPrefix, uniquePrefix } from '../../helpers/redis-prefix.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
  const leases = (instanceId: string, leaseMs: number) =>
    createRedisLeases(redis, { leaseMs, instanceId, onStoreFailure: () => failures.count++ });

  test('when an instance dies holding leases, then its slots come back within the lease time, not before', async () => {
    const dead = leases('dead', 1000);
    const alive = leases('alive', 1000);
    // Taken before the first lease is asked for: no lease can lapse sooner than 1000 ms after it, however
    // slowly the machine runs the steps between.
    const asked = Date.now();
    expect((await dead.acquire(counters('a', 2))).admitted).toBe(true);
    expect((await dead.acquire(counters('a', 2))).admitted).toBe(true);
    dead.close(); // a SIGKILL: no release, no renewal from here on
    const died = Date.now();
    expect(await alive.acquire(counters('a', 2))).toEqual({ admitted: false, full: 0 });
    let admitted = false;
    while (!admitted && Date.now() - died < 3000) {
      await sleep(50);
      const lease = await alive.acquire(counters('a', 2));
      if (lease.admitted) {
        admitted = true;
        lease.release();
      }
    }
    const freedAfter = Date.now() - asked;
    expect(admitted).toBe(true);
    expect(freedAfter).toBeGreaterThanOrEqual(990); // the lease, not a lost release, decided (1 ms clock steps)
    alive.close();
  });

  test('when a request outlasts its lease, then its instance renews it and the slot stays taken', async () => {
    const holder = leases('holder', 600);
    const other = leases('other', 600);
    const lease = await holder.acquire(counters('b', 1));
    expect(lease.admitted).toBe(true);
    // Three lease times later it is still held: renewals (every 200 ms) kept it.
    for (let i = 0; i < 6; i++) {
      await sleep(300);
      expect(await other.acquire(counters('b', 1))).toEqual({ admitted: false, full: 0 });
    }
    if (lease.admitted) lease.release();
    await sleep(50);
    const next = await other.acquire(counters('b', 1));
    expect(next.admitted).toBe(true);
    if (next.admitted) next.release();
    expect(holder.held).toBe(0);
    holder.close();
    other.close();
  });

  test('when two counters are entered together and the second is full, then neither is taken', async () => {
    const l = leases('pair', 5000);
    const both = [
      { key: `${prefix}{p}`, max: 5 },
      { key: `${prefix}{p}:rule`, max: 1 },
    ];
    const first = await l.acquire(both);
    expect(first.admitted).toBe(true);
    expect(await l.acquire(both)).toEqual({ admitted: false, full: 1 });
    expect(await redis.zcard(`${prefix}{p}`)).toBe(1);
    if (first.admitted) first.release();
    await sleep(50);
    expect(await redis.zcard(`${prefix}{p}`)).toBe(0);
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
