/**
 * Judges readiness deadlines (2 s after a SIGSTOP, the failover bound) on a private redis-server
 */
import {
  readinessUntil,
  readyz,
  startRigOnOwnRedis,
  untilNotReady,
  untilReady,
  type OwnRedisRig,
  type Rig,
} from '../../helpers/app-rig.js';
import { READINESS_PROBE_INTERVAL_MS } from '../../../src/http/routes/ops-routes.js';
import type { RedisServer } from '../../helpers/redis-server.js';
import { recordFigure } from '../../helpers/figures.js';
import { elapse, until } from '../../helpers/wait.js';

// A short failover bound, so "down past the bound" comes quickly; long enough that half of it leaves a
// restart of Redis (a process start on a loaded machine) well within it.
const FAILOVER_WAIT_MS = 3000;

describe('readiness when Redis goes away', () => {
  let own: OwnRedisRig;
  let redis: RedisServer;
  let rig: Rig;
  beforeAll(async () => {
    own = await startRigOnOwnRedis({ env: { STORE_FAILOVER_WAIT_MS: String(FAILOVER_WAIT_MS) } });
    ({ rig, redis } = own);
  });
  afterAll(() => own.close());

  test('when Redis and the data server answer, then /readyz is 200 with every check ok and /healthz is 200', async () => {
    const ready = await readyz(rig);
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { store: 'ok', upstream: 'ok' } });
    expect(ready.headers['cache-control']).toBe('no-store');
    const health = await rig.agent().get('/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
  });

  test('when Redis is back within the failover bound, then /readyz stays 200 throughout (a failover is ridden out)', async () => {
    await redis.kill();
    const from = Date.now();
    // /readyz for half the bound, then Redis back.
    const seen = (await readinessUntil(rig, from, FAILOVER_WAIT_MS / 2, () => false)).map((s) => s.status);
    await redis.restart();
    seen.push((await readyz(rig)).status);
    // Set-up: Redis was back within the bound (else a 503 at the end would be right).
    expect(Date.now() - from).toBeLessThan(FAILOVER_WAIT_MS);
    expect(seen.length).toBeGreaterThan(3);
    expect(seen.filter((s) => s !== 200)).toEqual([]);
    // Past the bound, ready only if the client really reconnected (the next test starts from a live one).
    await elapse(from + FAILOVER_WAIT_MS + 100 - Date.now(), 'past the failover bound, counted from the kill');
    expect(await untilReady(rig)).toBe(200);
  });

  test('when a readiness PING is on the wire as the connection is lost, then /readyz stays 200 (the PING waits like any read)', async () => {
    // No verdict left to reuse: the next /readyz probes.
    await elapse(READINESS_PROBE_INTERVAL_MS + 100, 'the last readiness verdict must run out');
    // The store's readiness probes so far (counted as each ends).
    const probes = async () =>
      (await rig.service.metrics.readinessProbes.get()).values
        .filter((v) => v.labels.check === 'store')
        .reduce((n, v) => n + v.value, 0);
    const probesBefore = await probes();
    redis.pause();
    // Its PING goes out and gets no answer; the connection is lost well before the command timeout (800 ms).
    const probe = readyz(rig);
    const main = rig.service.stores.redis as unknown as { commandQueue: { length: number } };
    await until('the readiness PING to be on the wire', () => main.commandQueue.length > 0, { intervalMs: 5 });
    const from = Date.now();
    await redis.kill();
    const seen = [(await probe).status];
    // Set-up: that /readyz ran a probe of its own (no verdict reused).
    expect((await probes()) - probesBefore).toBeGreaterThan(0);
    seen.push(...(await readinessUntil(rig, from, FAILOVER_WAIT_MS / 2, () => false)).map((s) => s.status));
    await redis.restart();
    seen.push((await readyz(rig)).status);
    expect(Date.now() - from).toBeLessThan(FAILOVER_WAIT_MS);
    expect(seen).toEqual(seen.map(() => 200));
    await elapse(from + FAILOVER_WAIT_MS + 100 - Date.now(), 'past the failover bound, counted from the kill');
    expect(await untilReady(rig)).toBe(200);
  });

  test('when Redis is stopped past the failover bound, then /readyz is 503 naming the store, /healthz stays 200, and readiness returns with Redis', async () => {
    // From before the kill: the client sees the socket close before the process is reaped.
    const from = Date.now();
    await redis.kill();
    const seen = await readinessUntil(rig, from, FAILOVER_WAIT_MS + 5000);
    // Ready while within the bound, not ready past it.
    expect(seen.at(-1)!.status).toBe(503);
    expect(seen.at(-1)!.at).toBeGreaterThanOrEqual(FAILOVER_WAIT_MS - 100);
    expect(seen.filter((s) => s.at < FAILOVER_WAIT_MS - 500 && s.status !== 200)).toEqual([]);
    const down = await readyz(rig);
    expect(down.status).toBe(503);
    expect(down.body).toEqual({
      status: 'not_ready',
      reason: 'store unavailable',
      checks: { store: 'unavailable', upstream: 'ok' },
      // Which dependency and why (issue 43): the fault, the setting, a reason; no address.
      details: { store: { fault: 'redis_refused', setting: 'REDIS_URL', reason: 'connection refused' } },
    });
    expect((await rig.agent().get('/healthz')).status).toBe(200);

    await redis.restart();
    expect(await untilReady(rig)).toBe(200);
    expect((await readyz(rig)).body.checks).toEqual({ store: 'ok', upstream: 'ok' });
  });

  test('when Redis hangs (SIGSTOP), then /readyz answers 503 within its check bound instead of hanging', async () => {
    const pausedAt = performance.now();
    redis.pause();
    try {
      const hung = await untilNotReady(rig);
      const notReadyAfterMs = Math.round(performance.now() - pausedAt);
      recordFigure(
        `frozen Redis: /readyz 503 ${notReadyAfterMs} ms after the SIGSTOP (that answer took ${Math.round(hung.ms)} ms)`,
      );
      expect(hung.status).toBe(503);
      expect(hung.body.checks.store).toBe('unavailable');
      // Issue 28: a frozen store makes /readyz 503 within 2 s (a verdict reused for up to
      // READINESS_PROBE_INTERVAL_MS, then a PING failing at REDIS_COMMAND_TIMEOUT_MS, 1000 + 800 ms).
      expect(notReadyAfterMs).toBeLessThan(2000);
    } finally {
      redis.resume();
    }
    expect(await untilReady(rig)).toBe(200);
  });
});
