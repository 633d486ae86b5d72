/**
 * Kills, restarts and freezes a private redis-server and waits for timers around it
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createLogger } from '../../../src/observability/logger.js';
import { createCipher } from '../../../src/crypto/crypto.js';
import { createRedisStores } from '../../../src/store/create-stores.js';
import { createRedisClient, type RedisClient } from '../../../src/store/redis/client.js';
import { failFastWhileSilent, replyBeforeTimeout } from '../../../src/store/redis/command-timeout.js';
import {
  ClientLeftError,
  issuedFor,
  rideOutFailover,
  type FailoverWait,
} from '../../../src/store/redis/failover-wait.js';
import type { Stores } from '../../../src/store/types.js';
import { elapse, poll, until } from '../../helpers/wait.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { startFaultProxy } from '../../helpers/fault-proxy.js';

// A private redis-server: these tests kill and freeze it, which the shared one must never see.
let server: RedisServer;

const silent = createLogger({ level: 'fatal', destination: { write: () => undefined } });

/** The rig's command timeout. */
const COMMAND_TIMEOUT_MS = 500;
/** failover-wait.ts's QUIET_MS: failed tries further apart than this belong to different failovers. */
const QUIET_MS = 1000;
/** failover-wait.ts's RETRY_DELAY_MS: the pause before a failed try is issued again. */
const RETRY_DELAY_MS = 100;

async function rig(waitMs: number, maxWaiters: number, url = server.url) {
  const redis: RedisClient = createRedisClient(
    { mode: 'standalone', url, commandTimeoutMs: COMMAND_TIMEOUT_MS, maxReconnectDelayMs: 100 },
    { logger: silent },
  );
  const failover: FailoverWait = rideOutFailover(redis, { waitMs, maxWaiters });
  await redis.connect();
  const stores: Stores = createRedisStores({
    redis,
    prefix: 'fw:',
    cipher: createCipher([{ id: 'k', key: randomBytes(32) }]),
    failover,
  });
  return { redis, failover, stores };
}

/**
 * Until `commands` commands issued on `redis` are written to its socket and unanswered: on the wire, where
 * a connection lost now loses them unanswered (a blackholed proxy swallows them).
 */
async function onTheWire(redis: RedisClient, commands: number): Promise<void> {
  const client = redis as Redis;
  await until(
    `${commands} commands on the wire`,
    () => client.commandQueue.length >= commands && client.stream.writableLength === 0,
  );
}

/** Outcome of a promise and when it settled, relative to `from`. */
async function timed<T>(from: number, p: Promise<T>) {
  try {
    const value = await p;
    return { ok: true as const, value, ms: Date.now() - from };
  } catch (err) {
    return { ok: false as const, error: err as Error, ms: Date.now() - from };
  }
}

beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server.stop();
});

describe('store commands ride out a lost Redis connection', () => {
  test('when the client ends by itself (as ioredis can in a failover) and is connected again, then a command issued meanwhile waits for it instead of failing', async () => {
    const { redis, failover, stores } = await rig(10_000, 3);
    try {
      await redis.set('fw:ended', 'still here');
      // Ended without close(): the stores connect it again a moment later (create-stores.ts).
      redis.disconnect();
      await poll(async () => redis.status === 'end', 5000, 'the client to end');
      const read = timed(Date.now(), redis.get('fw:ended'));
      expect(failover.waiting()).toBe(1);
      expect(failover.withinBound()).toBe(true);
      expect(await read).toMatchObject({ ok: true, value: 'still here' });
      expect(failover.waiting()).toBe(0);
    } finally {
      await stores.close();
    }
  });

  test('when the signal of a waiting command aborts, then its slot is free at once and the command is never sent; a signal not aborted keeps its command waiting', async () => {
    const { redis, failover, stores } = await rig(10_000, 3);
    try {
      await redis.set('fw:left', '0');
      await redis.set('fw:stays', '0');
      // A command that does not wait never reads its call's signal (a request's is made on first read).
      let reads = 0;
      const counted = {
        get signal(): AbortSignal | undefined {
          reads += 1;
          return undefined;
        },
      };
      expect(await issuedFor(counted, () => redis.get('fw:left'))).toBe('0');
      expect(reads).toBe(0);
      await redis.save();
      await server.kill();
      await poll(async () => redis.status !== 'ready', 5000, 'the client to notice the kill');
      const leaving = new AbortController();
      const call = { signal: leaving.signal };
      const staying = { signal: new AbortController().signal };
      const abandoned = [1, 2].map(() =>
        timed(
          Date.now(),
          issuedFor(call, () => redis.incr('fw:left')),
        ),
      );
      const kept = timed(
        Date.now(),
        issuedFor(staying, () => redis.incr('fw:stays')),
      );
      expect(failover.waiting()).toBe(3);
      // The cap is full: one more fails at once.
      const refused = await timed(Date.now(), redis.get('fw:stays'));
      expect(refused.ok).toBe(false);

      leaving.abort();
      expect(failover.waiting()).toBe(1);
      for (const a of await Promise.all(abandoned)) expect(a.ok === false && a.error).toBeInstanceOf(ClientLeftError);
      // A call already aborted never waits at all.
      const late = await timed(
        Date.now(),
        issuedFor(call, () => redis.incr('fw:left')),
      );
      expect(late.ok === false && late.error).toBeInstanceOf(ClientLeftError);
      expect(failover.waiting()).toBe(1);

      await server.restart();
      expect(await kept).toMatchObject({ ok: true, value: 1 });
      expect(failover.waiting()).toBe(0);
      // The abandoned INCRs never reached Redis, not even once the connection was back: one sent when it came
      // back would have gone with the kept INCR, before this GET on the same connection...
      expect(await redis.get('fw:left')).toBe('0');
      // ...and none is sent later either.
      await elapse(5 * RETRY_DELAY_MS, 'a stretch after the reconnect in which no abandoned INCR may be sent');
      expect(await redis.get('fw:left')).toBe('0');
    } finally {
      await stores.close();
    }
  });

  test('when Redis is killed and back within the bound, then commands issued meanwhile succeed once it is back and readiness stays ready', async () => {
    // A bound the outage below stays well within, however long a loaded machine takes to restart Redis.
    const { redis, failover, stores } = await rig(20_000, 100);
    try {
      await redis.set('fw:k', 'before');
      await server.kill();
      await poll(async () => redis.status !== 'ready', 5000, 'the client to notice the kill');
      const from = Date.now();
      const pending = timed(from, Promise.all([redis.get('fw:k'), redis.set('fw:k2', 'during'), redis.incr('fw:n')]));
      await until('the three commands to wait', () => failover.waiting() === 3);
      // Within the bound: ready, without a PING that would itself wait.
      await expect(stores.ping()).resolves.toBeUndefined();
      await elapse(
        COMMAND_TIMEOUT_MS + 200,
        'the outage outlasts the command timeout: held commands must not be timed out by it',
      );
      await server.restart();
      const outcome = await pending;
      expect(outcome.ok).toBe(true);
      // The data was not persisted (no save), so the GET sees nothing; the write and the INCR went once.
      expect(outcome.ok && outcome.value).toEqual([null, 'OK', 1]);
      expect(await redis.get('fw:n')).toBe('1');
      expect(failover.waiting()).toBe(0);
    } finally {
      await stores.close();
    }
  });

  test('when Redis stays down past the bound, then a waiting command fails at the bound, later ones at once, and readiness fails', async () => {
    const waitMs = 3000;
    const { redis, failover, stores } = await rig(waitMs, 100);
    try {
      const killed = Date.now();
      await server.kill();
      await poll(async () => redis.status !== 'ready', 5000, 'the client to notice the kill');
      const waited = await timed(killed, redis.get('fw:k'));
      expect(waited.ok).toBe(false);
      // It waited out the bound, which runs from the loss, after `killed` (less a few ms of timer rounding)...
      expect(waited.ms).toBeGreaterThanOrEqual(waitMs - 5);
      // ...and was let go there, not held on (the allowance is for a starved event loop's late timer).
      expect(waited.ms).toBeLessThan(2 * waitMs);
      const later = await timed(Date.now(), redis.get('fw:k'));
      expect(later.ok).toBe(false);
      // At once: no wait of its own, which would be the whole bound again.
      expect(later.ms).toBeLessThan(waitMs / 2);
      expect(failover.withinBound()).toBe(false);
      await expect(stores.ping()).rejects.toThrow();
    } finally {
      await server.restart();
      await stores.close();
    }
  });

  test('when more commands wait than the cap, then the ones beyond it fail at once and the waiters succeed', async () => {
    const waitMs = 20_000;
    const { redis, failover, stores } = await rig(waitMs, 10);
    try {
      await server.kill();
      await poll(async () => redis.status !== 'ready', 5000, 'the client to notice the kill');
      const from = Date.now();
      let refusedSoFar = 0;
      const flood = Array.from({ length: 200 }, (_, i) =>
        timed(from, redis.set(`fw:flood:${i}`, 'x')).then((o) => {
          if (!o.ok) refusedSoFar += 1;
          return o;
        }),
      );
      // The ones beyond the cap are refused while Redis is still down: they did not wait for it.
      await until('the 190 beyond the cap to be refused', () => refusedSoFar === 190);
      expect(failover.waiting()).toBe(10);
      await server.restart();
      const outcomes = await Promise.all(flood);
      expect(outcomes.filter((o) => o.ok)).toHaveLength(10);
      const refused = outcomes.filter((o) => !o.ok);
      expect(refused).toHaveLength(190);
      // Nor for the bound (however slowly a starved event loop delivered the refusals).
      expect(Math.max(...refused.map((o) => o.ms))).toBeLessThan(waitMs / 2);
      expect(failover.waiting()).toBe(0);
    } finally {
      await stores.close();
    }
  });

  test('when the connection drops with reads and a write on the wire, then the reads are issued again once Redis is back, answered as read first time, and the write fails, never sent again', async () => {
    // Through a proxy: bytes written to it can be dropped on cue, so both commands are on the wire and neither ran.
    const proxy = await startFaultProxy({ port: server.port });
    const { redis, failover, stores } = await rig(10_000, 100, proxy.url('redis'));
    try {
      await redis.set('fw:wire', 'kept');
      await redis.set('fw:wire-n', '5');
      await redis.hset('fw:wire-h', { t: 'token', v: '2' });
      proxy.set({ kind: 'blackhole' });
      const from = Date.now();
      const read = timed(from, redis.get('fw:wire'));
      // A read whose reply ioredis reshapes (HGETALL's list into an object): a retried one used to come back
      // as the bare list, which the token store read as no token at all (a second mint in a failover).
      const hash = timed(from, redis.hgetall('fw:wire-h'));
      const write = timed(from, redis.incr('fw:wire-n'));
      await onTheWire(redis, 3);
      // The connection is lost with all three unanswered, and the first reconnect gets through at once.
      proxy.set({ kind: 'reset' });
      proxy.set({ kind: 'pass' });
      // The write may have run, as far as the client can tell: it fails at the command timeout.
      const wrote = await write;
      expect(wrote.ok).toBe(false);
      expect(wrote.ms).toBeLessThan(3 * COMMAND_TIMEOUT_MS);
      expect(await read).toMatchObject({ ok: true, value: 'kept' });
      expect(await hash).toMatchObject({ ok: true, value: { t: 'token', v: '2' } });
      expect(failover.waiting()).toBe(0);
      // Neither we nor ioredis (autoResendUnfulfilledCommands) sent the INCR again on the new connection: not
      // at the reconnect, ahead of the reads issued again (so before this GET), nor by a retry's timer later.
      expect(await redis.get('fw:wire-n')).toBe('5');
      await elapse(5 * RETRY_DELAY_MS, 'a stretch past the retry delay in which the INCR must not be sent again');
      expect(await redis.get('fw:wire-n')).toBe('5');
    } finally {
      await stores.close();
      await proxy.close();
    }
  });

  test('when an earlier outage outlasted the bound, then a read on the wire at a later loss is still issued again', async () => {
    const proxy = await startFaultProxy({ port: server.port });
    // A bound a read issued again after a reconnect stays within on a loaded machine too.
    const { redis, stores } = await rig(3000, 100, proxy.url('redis'));
    try {
      await redis.set('fw:later', 'kept');
      // A read on the wire at the loss is tried again, and the connection stays lost past the bound.
      proxy.set({ kind: 'blackhole' });
      const outage = timed(Date.now(), redis.get('fw:later'));
      await onTheWire(redis, 1);
      proxy.set({ kind: 'reset' });
      expect(await outage).toMatchObject({ ok: false });
      proxy.set({ kind: 'pass' });
      await poll(async () => redis.status === 'ready', 5000, 'the connection back');
      expect(await redis.get('fw:later')).toBe('kept');
      // Later (well past QUIET_MS), a failover: the read on the wire is issued again, as with no outage before.
      await elapse(2 * QUIET_MS, 'past QUIET_MS after the outage: the next loss is another failover');
      proxy.set({ kind: 'blackhole' });
      const read = timed(Date.now(), redis.get('fw:later'));
      await onTheWire(redis, 1);
      proxy.set({ kind: 'reset' });
      proxy.set({ kind: 'pass' });
      expect(await read).toMatchObject({ ok: true, value: 'kept' });
    } finally {
      await stores.close();
      await proxy.close();
    }
  });

  test('when a read on the wire at a loss was issued again and answered, then its try times out no later: the connection is not marked silent and the next command goes out', async () => {
    // The main connection as create-stores.ts builds it: the command timeout with its silence, the wait,
    // and the refusal while silent. A try issued again used to keep its command timer after its answer:
    // the timer fired one timeout later, found the try "unresolved" and marked the connection silent, so
    // every command for one more timeout was refused (seen after a Sentinel failover, sentinel-failover.test.ts).
    const proxy = await startFaultProxy({ port: server.port });
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', destination: { write: (line: string) => void lines.push(line) } });
    const timeoutMs = COMMAND_TIMEOUT_MS;
    const redis = createRedisClient(
      { mode: 'standalone', url: proxy.url('redis'), commandTimeoutMs: timeoutMs, maxReconnectDelayMs: 100 },
      { logger },
    );
    const silence = replyBeforeTimeout(redis, { logger, connection: 'main' });
    const failover = rideOutFailover(redis, { waitMs: 10_000, maxWaiters: 100 });
    failFastWhileSilent(redis, silence);
    await redis.connect();
    try {
      await redis.set('fw:again', 'kept');
      proxy.set({ kind: 'blackhole' });
      const read = redis.get('fw:again');
      await onTheWire(redis, 1);
      proxy.set({ kind: 'reset' });
      proxy.set({ kind: 'pass' });
      expect(await read).toBe('kept');
      // Past the answered try's command timeout: nothing timed out, so nothing is refused.
      await elapse(timeoutMs + 100, "past the answered try's command timeout, which must not fire");
      expect(await timed(Date.now(), redis.get('fw:again'))).toMatchObject({ ok: true, value: 'kept' });
      await elapse(timeoutMs, 'one more command timeout, in which nothing may time out either');
      expect(lines.filter((l) => l.includes('timed out'))).toEqual([]);
    } finally {
      failover.close();
      redis.disconnect();
      await proxy.close();
    }
  });

  test('when Redis is frozen (SIGSTOP), then a command still fails at the command timeout and readiness fails', async () => {
    const { redis, stores } = await rig(10_000, 100);
    try {
      server.pause();
      const from = Date.now();
      const frozen = await timed(from, redis.get('fw:k'));
      expect(frozen.ok).toBe(false);
      expect(frozen.ok ? '' : frozen.error.message).toMatch(/timed out/i);
      expect(frozen.ms).toBeLessThan(3 * COMMAND_TIMEOUT_MS);
      const ping = await timed(Date.now(), stores.ping());
      expect(ping.ok).toBe(false);
      expect(ping.ms).toBeLessThan(4 * COMMAND_TIMEOUT_MS);
    } finally {
      server.resume();
      await stores.close();
    }
  });
});
