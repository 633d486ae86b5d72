import { randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { createServer, createConnection, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { createRedisStores } from '../../../src/store/create-stores.js';
import { createCipher } from '../../../src/crypto/crypto.js';
import { createRedisClient } from '../../../src/store/redis/client.js';
import { ALIVE_MARK_MS } from '../../../src/store/redis/session-hot-path.js';
import type { StoreMetrics } from '../../../src/store/store-error.js';
import type { SessionCacheOptions } from '../../../src/store/redis/session-cache.js';
import type { Stores } from '../../../src/store/types.js';
import { uniquePrefix } from '../../helpers/redis-prefix.js';
import { watchCommands, type CommandWatch } from '../../helpers/redis-monitor.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { sessionExpiringIn } from '../../helpers/session-records.js';
import { freePort } from '../../helpers/ports.js';
import { startFaultProxy } from '../../helpers/fault-proxy.js';
import { recordFigure } from '../../helpers/figures.js';
import { until } from '../../helpers/wait.js';

// Two "instances" (stores with caches of their own) on a redis-server of the test's own: MONITOR counts
// what reaches Redis, CLIENT KILL drops connections, and nothing else runs there.
const cipher = createCipher([{ id: 'k1', key: randomBytes(32) }]);
const hot = { touchFraction: 0.01, maxTouchSkipMs: 60_000 };
const cacheOptions = { max: 50, ttlMs: 60_000, heartbeatMs: 200 };

type Kind = 'hit' | 'miss' | 'shared' | 'bypass' | 'key' | 'flush';

/** Metrics that count, and tell when an invalidation or a flush happened (so tests await it, not a sleep). */
function observed() {
  const events = new EventEmitter();
  const counts: Record<Kind, number> & { size: number } = {
    hit: 0,
    miss: 0,
    shared: 0,
    bypass: 0,
    key: 0,
    flush: 0,
    size: 0,
  };
  const metrics: StoreMetrics = {
    redisErrors: { inc: () => undefined },
    sessionCache: {
      lookups: { inc: ({ result }) => void (counts[result] += 1) },
      invalidations: {
        inc: ({ kind }) => {
          counts[kind] += 1;
          events.emit(kind);
        },
      },
      size: { set: (n) => void (counts.size = n) },
    },
  };
  return { metrics, counts, next: (kind: 'key' | 'flush') => once(events, kind).then(() => undefined) };
}

interface Instance {
  stores: Stores;
  seen: ReturnType<typeof observed>;
}

let server: RedisServer;
let prefix: string;
let watch: CommandWatch;
let admin: Redis;
const open: Instance[] = [];
/** Run after the instances closed (a proxy in front of one must outlive its connections). */
const cleanups: Array<() => Promise<void>> = [];

async function instance(url = server.url, options: SessionCacheOptions = cacheOptions): Promise<Instance> {
  const redis = createRedisClient({ mode: 'standalone', url });
  await redis.connect();
  const seen = observed();
  const stores = createRedisStores({
    redis,
    prefix,
    cipher,
    metrics: seen.metrics,
    sessionHotPath: hot,
    sessionCache: options,
  });
  await stores.sessionCache!.whenServing();
  const made = { stores, seen };
  open.push(made);
  return made;
}

beforeAll(async () => {
  server = await startRedisServer();
  admin = new Redis(server.url);
});
afterAll(async () => {
  admin.disconnect();
  await server.stop();
});
beforeEach(async () => {
  prefix = uniquePrefix('session-cache');
  watch = await watchCommands(server.url, prefix);
});
afterEach(async () => {
  watch.stop();
  await Promise.all(open.splice(0).map((i) => i.stores.close()));
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function newSession(on: Instance): Promise<string> {
  const sid = randomUUID();
  await on.stores.sessionStore.set(sid, sessionExpiringIn(100_000, { graph: 'social' }));
  return sid;
}

/** Loads the session on `on` until it is served from memory (a load right after a write re-reads once). */
async function warm(on: Instance, sid: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const before = on.seen.counts.hit;
    expect(await on.stores.sessionStore.get(sid)).not.toBeNull();
    if (on.seen.counts.hit > before) return;
  }
  throw new Error('the session never came from the cache');
}

/** The subscriber connection of one instance's cache, by the name it gives itself. */
async function invalidationClients(): Promise<string[]> {
  const list = String(await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub'));
  return list
    .split('\n')
    .filter((line) => / name=tgbff-invalidations /.test(line))
    .map((line) => /\bid=(\d+)/.exec(line)![1]!);
}

test('when a warm session is loaded and its tombstone checked, then no command reaches Redis', async () => {
  const a = await instance();
  const sid = await newSession(a);
  await watch.reset();
  expect(await a.stores.sessionStore.get(sid)).toMatchObject({ graph: 'social' });
  // The first load reads (and tracks) the session and tombstone, with the key's TTL to cap the entry's.
  expect((await watch.commands()).map(([name]) => name)).toEqual(['mget', 'pttl']);

  // The tombstone check trusts the alive mark the load before it renewed, for ALIVE_MARK_MS. A round in
  // which the machine stalled that long between the two (a loaded CI) rightly asks Redis: it is run again,
  // not judged; the last round is judged whatever happened.
  for (let round = 1; ; round++) {
    await warm(a, sid);
    await watch.reset();
    let stalled = false;
    for (let i = 0; i < 20; i++) {
      const start = performance.now();
      expect(await a.stores.sessionStore.get(sid)).toMatchObject({ graph: 'social' });
      expect(await a.stores.tombstones.isDead(sid)).toBe(false);
      stalled ||= performance.now() - start >= ALIVE_MARK_MS;
    }
    if (!stalled || round === 5) break;
  }
  expect(await watch.commands()).toEqual([]);
});

test('when another instance logs the session out, then this one honours it once the invalidation arrived', async () => {
  const [a, b] = [await instance(), await instance()];
  const windows: number[] = [];
  for (let round = 0; round < 10; round++) {
    const sid = await newSession(b);
    await warm(a, sid);
    const invalidated = a.seen.next('key');
    const wrote = performance.now();
    await b.stores.tombstones.mark(sid, 60_000);
    await invalidated;
    windows.push(performance.now() - wrote);
    expect(await a.stores.sessionStore.get(sid)).toBeNull();
    expect(await a.stores.tombstones.isDead(sid)).toBe(true);
  }
  // The window between B's write starting and A's invalidation (the figure docs/architecture.md states).
  recordFigure(`invalidation window, write start to A's invalidation: max ${Math.max(...windows).toFixed(2)} ms`);
});

test('when another instance writes or destroys the session, then this one reads it again', async () => {
  const [a, b] = [await instance(), await instance()];
  const sid = await newSession(a);
  await warm(a, sid);
  let invalidated = a.seen.next('key');
  await b.stores.sessionStore.set(sid, sessionExpiringIn(100_000, { graph: 'other' }));
  await invalidated;
  expect(await a.stores.sessionStore.get(sid)).toMatchObject({ graph: 'other' });
  await warm(a, sid);
  invalidated = a.seen.next('key');
  await b.stores.sessionStore.destroy(sid);
  await invalidated;
  expect(await a.stores.sessionStore.get(sid)).toBeNull();
});

test("when this instance touches the session, then the touch's invalidation leaves no stale record", async () => {
  const a = await instance();
  const sid = await newSession(a);
  await warm(a, sid);
  const session = sessionExpiringIn(100_000, { graph: 'social' });
  await a.stores.sessionStore.touch(sid, session);
  // The touch dropped the entry here at once; the next load reads the record with its new TTL.
  await watch.reset();
  expect(await a.stores.sessionStore.get(sid)).toMatchObject({ graph: 'social' });
  expect((await watch.commands()).map(([name]) => name)).toEqual(['mget', 'pttl']);
  // Destroying it here is seen here at once, without waiting for Redis's message.
  await a.stores.sessionStore.destroy(sid);
  expect(await a.stores.sessionStore.get(sid)).toBeNull();
});

test('when an invalidation overtakes the reply of a read in flight, then that reply is not cached', async () => {
  // A proxy in front of A's Redis that can hold back what Redis answers on the tracked connection only.
  const proxy = await holdingProxy(server.port);
  cleanups.push(() => proxy.close());
  const a = await instance(proxy.url);
  const b = await instance();
  const sid = await newSession(b);
  proxy.hold(true);
  const reading = a.stores.sessionStore.get(sid); // A's read: sent, its answer held in the proxy
  await proxy.heldSomething();
  const invalidated = a.seen.next('key');
  await b.stores.sessionStore.set(sid, sessionExpiringIn(100_000, { graph: 'changed' }));
  await invalidated; // the invalidation came on A's other connection, ahead of the reply
  proxy.hold(false);
  expect(await reading).toMatchObject({ graph: 'social' }); // the old answer, for the request in flight
  // …but not kept: the next load reads again and sees the write.
  await watch.reset();
  expect(await a.stores.sessionStore.get(sid)).toMatchObject({ graph: 'changed' });
  expect((await watch.commands()).map(([name]) => name)).toContain('mget');
});

test('when the invalidation connection is killed under load, then the cache is flushed and nothing stale is served', async () => {
  const [a, b] = [await instance(), await instance()];
  const sids = await Promise.all(Array.from({ length: 10 }, () => newSession(b)));
  for (const sid of sids) await warm(a, sid);
  let stop = false;
  let loads = 0;
  const load = async () => {
    while (!stop) {
      await Promise.all(sids.map((sid) => a.stores.sessionStore.get(sid)));
      loads += sids.length;
      // Hits resolve without I/O: a turn of the event loop lets the connections' events in between.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  };
  const loading = load();
  const before = await invalidationClients();
  expect(before.length).toBe(2); // A's and B's
  const flushed = a.seen.next('flush');
  const flushedB = b.seen.next('flush');
  for (const id of before) await admin.call('CLIENT', 'KILL', 'ID', id);
  await Promise.all([flushed, flushedB]);
  expect(a.stores.sessionCache!.size()).toBe(0);

  // Logouts while A sets tracking up again (their invalidations may well be lost): A must still see them.
  await Promise.all(sids.map((sid) => b.stores.tombstones.mark(sid, 60_000)));
  for (const sid of sids) expect(await a.stores.sessionStore.get(sid)).toBeNull();
  await a.stores.sessionCache!.whenServing();
  for (const sid of sids) expect(await a.stores.sessionStore.get(sid)).toBeNull();
  stop = true;
  await loading;
  expect(loads).toBeGreaterThan(0);
  // B was flushed too and sets its tracking up again on its own time: both subscribe again.
  await b.stores.sessionCache!.whenServing();
  await until(
    'both instances to subscribe to invalidations again',
    async () => (await invalidationClients()).length === 2,
  );

  // And it serves again after tracking is back.
  const sid = await newSession(b);
  await warm(a, sid);
});

// The window in which a cache serves without hearing from Redis: the heartbeat (a PING on the
// invalidation connection every `heartbeatMs`) must go unanswered for REDIS_COMMAND_TIMEOUT_MS first, so a
// cache notices a silent Redis within heartbeat + timeout: 1.8 s with the service's defaults (1000 + 800).
const SERVICE_DEFAULTS = { max: 50, ttlMs: 60_000 };
const SILENT_BOUND_MS = 1000 + 800;

/**
 * Loads `sid` on `on` every 10 ms (one load at a time) until the cache flushes; how long after `since()` the
 * flush came, and how many loads the cache served before it.
 */
async function servedUntilFlush(on: Instance, sid: string, since: () => number) {
  const flushed = on.seen.next('flush');
  let served = 0;
  let loading = false;
  const load = async (): Promise<void> => {
    loading = true;
    const hits = on.seen.counts.hit;
    const record = await on.stores.sessionStore.get(sid).catch(() => null);
    if (record !== null && on.seen.counts.hit > hits) served += 1;
    loading = false;
  };
  const pace = setInterval(() => void (loading || load()), 10);
  try {
    await flushed;
  } finally {
    clearInterval(pace);
  }
  const tookMs = performance.now() - since();
  await until('the last load to end', () => !loading);
  return { tookMs, served };
}

test('when Redis freezes, then warm sessions are served from the cache until the heartbeat misses (at most 1.8 s), then loads fail', async () => {
  const a = await instance(server.url, SERVICE_DEFAULTS);
  const sid = await newSession(a);
  await warm(a, sid);
  let frozenAt = 0;
  const window = servedUntilFlush(a, sid, () => frozenAt);
  server.pause();
  frozenAt = performance.now();
  try {
    const { tookMs, served } = await window;
    recordFigure(
      `frozen Redis: served ${served} loads from the cache, flushed ${tookMs.toFixed(0)} ms after the freeze`,
    );
    // Frozen, Redis runs no write: what the cache holds is what Redis holds.
    expect(served).toBeGreaterThan(0);
    expect(tookMs).toBeLessThan(SILENT_BOUND_MS + 300);
    // Bypassed from then on: a load goes to Redis, and fails at the command timeout.
    await expect(a.stores.sessionStore.get(sid)).rejects.toMatchObject({ code: 'store_unavailable' });
  } finally {
    server.resume();
  }
  await a.stores.sessionCache!.whenServing();
  await warm(a, sid);
});

test('when one instance is cut off from Redis (silently) and another logs the session out, then the cut-off one serves it for at most 1.8 s', async () => {
  const proxy = await startFaultProxy({ port: server.port });
  cleanups.push(() => proxy.close());
  const [a, b] = [await instance(proxy.url('redis'), SERVICE_DEFAULTS), await instance(server.url, SERVICE_DEFAULTS)];
  const sid = await newSession(b);
  await warm(a, sid);
  proxy.set({ kind: 'blackhole' });
  await b.stores.tombstones.mark(sid, 60_000);
  const acknowledged = performance.now();
  // Redis took the logout and pushed the invalidation, which never reaches A: A's cache still answers.
  const { tookMs, served } = await servedUntilFlush(a, sid, () => acknowledged);
  recordFigure(
    `cut-off instance: served an ended session ${served} times, flushed ${tookMs.toFixed(0)} ms after the logout`,
  );
  expect(tookMs).toBeLessThan(SILENT_BOUND_MS + 300);
  await expect(a.stores.sessionStore.get(sid)).rejects.toMatchObject({ code: 'store_unavailable' });
  // Back: the connections that lost bytes are reset (ioredis would match later replies to the commands the
  // blackhole swallowed), A connects again, sets tracking up and refuses the session.
  proxy.set({ kind: 'reset' });
  await until("A's connections through the proxy to be cut", () => proxy.open() === 0);
  proxy.set({ kind: 'pass' });
  await a.stores.sessionCache!.whenServing();
  expect(await a.stores.sessionStore.get(sid)).toBeNull();
});

test('when the tracked data connection is killed, then the cache is flushed and set up again', async () => {
  const a = await instance();
  const sid = await newSession(a);
  await warm(a, sid);
  const list = String(await admin.call('CLIENT', 'LIST', 'TYPE', 'normal'));
  const tracked = list.split('\n').filter((line) => / name=tgbff-tracked /.test(line) && /flags=\S*t/.test(line));
  expect(tracked.length).toBeGreaterThan(0);
  const flushed = a.seen.next('flush');
  for (const line of tracked) await admin.call('CLIENT', 'KILL', 'ID', /\bid=(\d+)/.exec(line)![1]!);
  await flushed;
  expect(a.stores.sessionCache!.serving()).toBe(false);
  await admin.del(`${prefix}sess:{${sid}}`); // a write no invalidation will report to the dropped tracking
  expect(await a.stores.sessionStore.get(sid)).toBeNull();
  await a.stores.sessionCache!.whenServing();
});

test('when Redis says "flush everything" (a null invalidation), then the cache is emptied', async () => {
  const a = await instance();
  const sid = await newSession(a);
  await warm(a, sid);
  const flushed = a.seen.next('flush');
  await admin.flushdb();
  await flushed;
  expect(a.stores.sessionCache!.size()).toBe(0);
  expect(await a.stores.sessionStore.get(sid)).toBeNull();
});

test('when many more sessions are warmed than the cap, then the cache holds at most the cap', async () => {
  const a = await instance();
  const sids = await Promise.all(Array.from({ length: cacheOptions.max * 4 }, () => newSession(a)));
  for (const sid of sids) {
    await a.stores.sessionStore.get(sid);
    await a.stores.sessionStore.get(sid);
  }
  expect(a.seen.counts.hit).toBeGreaterThan(0);
  expect(a.stores.sessionCache!.size()).toBe(cacheOptions.max);
  expect(a.seen.counts.size).toBe(cacheOptions.max);
});

test('when many requests of one session miss together, then they share one read of Redis', async () => {
  const a = await instance();
  const sid = await newSession(a);
  await watch.reset();
  const loads = await Promise.all(Array.from({ length: 20 }, () => a.stores.sessionStore.get(sid)));
  expect(loads.every((l) => (l as { graph?: string } | null)?.graph === 'social')).toBe(true);
  expect((await watch.commands()).map(([name]) => name)).toEqual(['mget', 'pttl']);
  expect(a.seen.counts.shared).toBe(19);
});

test('when a session is unknown or logged out, then it is not cached (no room taken by refusals)', async () => {
  const a = await instance();
  for (let i = 0; i < 20; i++) expect(await a.stores.sessionStore.get(randomUUID())).toBeNull();
  const sid = await newSession(a);
  await a.stores.tombstones.mark(sid, 60_000);
  expect(await a.stores.sessionStore.get(sid)).toBeNull();
  expect(a.stores.sessionCache!.size()).toBe(0);
});

/**
 * A loopback proxy to Redis that, while holding, keeps back the answers on the connection that turned
 * CLIENT TRACKING on (the cache's tracked reads) and lets everything else through.
 */
async function holdingProxy(port: number) {
  const listenPort = await freePort();
  let holding = false;
  const held: Array<() => void> = [];
  const heldWaiters: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const proxy: Server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port });
    sockets.add(client).add(upstream);
    let tracked = false;
    client.on('data', (chunk) => {
      if (/TRACKING/i.test(chunk.toString('latin1'))) tracked = true;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (tracked && holding) {
        held.push(() => client.write(chunk));
        for (const wake of heldWaiters.splice(0)) wake();
      } else client.write(chunk);
    });
    for (const [x, y] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      x.on('close', () => y.destroy());
      x.on('error', () => y.destroy());
    }
  });
  await new Promise<void>((resolve) => proxy.listen(listenPort, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${listenPort}`,
    hold(on: boolean) {
      holding = on;
      if (!on) for (const release of held.splice(0)) release();
    },
    heldSomething: () =>
      held.length > 0 ? Promise.resolve() : new Promise<void>((resolve) => heldWaiters.push(resolve)),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
