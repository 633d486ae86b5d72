import type { RedisClient } from '../store/redis/client.js';
import { redisScript } from '../store/redis/script.js';

/** One counter to enter: its Redis key (or memory name) and its cap. */
export interface LeaseCounter {
  key: string;
  max: number;
}

/** Entered: `release` exactly once. Refused: the index of the first counter that was full. */
export type LeaseResult = { admitted: true; release(): void } | { admitted: false; full: number };

export interface ConcurrencyLeases {
  /** Enters every counter or none (all keys of one call share a Cluster slot: one hash tag). */
  acquire(counters: readonly LeaseCounter[]): Promise<LeaseResult>;
  /** Leases this instance holds (tests, metrics). */
  readonly held: number;
  /** Stops the renewal timer (leases still held expire on their own). */
  close(): void;
}

// KEYS: the counters (one sorted set each: member = lease id, score = deadline in epoch ms).
// ARGV: now, deadline, lease id, key TTL ms, then one cap per key. Expired leases (a killed instance's)
// are dropped first, so they never count; all or nothing; returns 0, or the 1-based index of a full key.
const ACQUIRE = redisScript(`
local now = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if redis.call('ZCARD', key) >= tonumber(ARGV[4 + i]) then return i end
end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, ARGV[2], ARGV[3])
  redis.call('PEXPIRE', key, ARGV[4])
end
return 0`);

// ARGV: lease id. Removes it from every counter.
const RELEASE = redisScript(`
for i, key in ipairs(KEYS) do redis.call('ZREM', key, ARGV[1]) end
return 0`);

// ARGV: new deadline, lease id, key TTL ms. Moves a lease's deadline on if it is still there.
const RENEW = redisScript(`
for i, key in ipairs(KEYS) do
  if redis.call('ZADD', key, 'XX', 'CH', ARGV[1], ARGV[2]) == 1 then redis.call('PEXPIRE', key, ARGV[3]) end
end
return 0`);

export interface LeaseOptions {
  /** A lease lapses this long after it was taken or last renewed unless its holder renews it. */
  leaseMs: number;
  /** Unique per process: lease ids are `<instanceId>:<n>`. */
  instanceId: string;
  now?: () => number;
  /** A release or renewal failed in Redis (acquire failures reject: the caller decides with its fallback). */
  onStoreFailure(op: 'release' | 'renew', err: unknown): void;
}

interface Held {
  keys: string[];
  takenAt: number;
}

/**
 * A distributed in-flight counter per principal: a Redis sorted set whose members are leases scored by
 * their deadline. A request takes a lease (one Lua call), gives it back when its answer ends (one ZREM),
 * and while it lasts longer than a third of the lease this instance renews it (one call per such lease
 * every leaseMs / 3; short requests never cost a renewal). An instance that dies stops renewing, so its
 * leases lapse within leaseMs and the slots come back by themselves: nothing leaks. Deadlines are on the
 * caller's clock (the script stays deterministic); clocks of instances that differ by d shift expiry by d.
 */
export function createRedisLeases(redis: RedisClient, opts: LeaseOptions): ConcurrencyLeases {
  const now = opts.now ?? Date.now;
  const held = new Map<string, Held>();
  let n = 0;
  let timer: NodeJS.Timeout | undefined;
  const renewEvery = Math.max(100, Math.floor(opts.leaseMs / 3));

  const renew = (): void => {
    const t = now();
    for (const [id, lease] of held) {
      if (t - lease.takenAt < renewEvery) continue;
      RENEW.run(redis, lease.keys, [t + opts.leaseMs, id, opts.leaseMs]).catch((err: unknown) =>
        opts.onStoreFailure('renew', err),
      );
    }
  };
  const track = (id: string, keys: string[]): void => {
    held.set(id, { keys, takenAt: now() });
    if (timer === undefined) {
      timer = setInterval(renew, renewEvery);
      timer.unref();
    }
  };
  const untrack = (id: string): void => {
    held.delete(id);
    if (held.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  return {
    async acquire(counters) {
      const id = `${opts.instanceId}:${(n = (n + 1) % Number.MAX_SAFE_INTEGER)}`;
      const keys = counters.map((c) => c.key);
      const t = now();
      const args = [t, t + opts.leaseMs, id, opts.leaseMs, ...counters.map((c) => c.max)];
      const full = Number(await ACQUIRE.run(redis, keys, args));
      if (full !== 0) return { admitted: false, full: full - 1 };
      track(id, keys);
      let released = false;
      return {
        admitted: true,
        release() {
          if (released) return;
          released = true;
          untrack(id);
          // A release that fails leaves the lease to lapse within leaseMs: late, never leaked.
          const done = keys.length === 1 ? redis.zrem(keys[0]!, id) : RELEASE.run(redis, keys, [id]);
          done.catch((err: unknown) => opts.onStoreFailure('release', err));
        },
      };
    },
    get held() {
      return held.size;
    },
    close() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}

/** The same counters in this process only: the memory store mode, and the fallback while Redis fails. */
export function createMemoryLeases(): ConcurrencyLeases {
  const counts = new Map<string, number>();
  let live = 0;
  const leave = (key: string): void => {
    const c = counts.get(key) ?? 0;
    if (c <= 1) counts.delete(key);
    else counts.set(key, c - 1);
  };
  return {
    acquire(counters) {
      const full = counters.findIndex((c) => (counts.get(c.key) ?? 0) >= c.max);
      if (full >= 0) return Promise.resolve({ admitted: false, full });
      for (const c of counters) counts.set(c.key, (counts.get(c.key) ?? 0) + 1);
      live += 1;
      let released = false;
      return Promise.resolve({
        admitted: true,
        release() {
          if (released) return;
          released = true;
          live -= 1;
          for (const c of counters) leave(c.key);
        },
      });
    },
    get held() {
      return live;
    },
    close() {
      counts.clear();
    },
  };
}
