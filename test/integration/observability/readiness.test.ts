import { READINESS_PROBE_INTERVAL_MS } from '../../../src/http/routes/ops-routes.js';
import { startRig, startRigOnOwnRedis, untilReady, type OwnRedisRig, type Rig } from '../../helpers/app-rig.js';
import type { RedisServer } from '../../helpers/redis-server.js';

async function readyz(rig: Rig) {
  const started = performance.now();
  const res = await rig.agent().get('/readyz');
  return { status: res.status, body: res.body, headers: res.headers, ms: performance.now() - started };
}

/**
 * The first 503 after a dependency went away. A check's verdict is shared and reused for up to
 * READINESS_PROBE_INTERVAL_MS after its probe (so a flood of /readyz costs one probe a second), so an
 * outage shows within that plus the check's own bound; each answer still comes within the check bound.
 */
async function untilNotReady(rig: Rig) {
  const deadline = performance.now() + READINESS_PROBE_INTERVAL_MS + 2000;
  for (;;) {
    const answer = await readyz(rig);
    expect(answer.ms).toBeLessThan(3000);
    if (answer.status === 503 || performance.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('readiness when Redis goes away', () => {
  let own: OwnRedisRig;
  let redis: RedisServer;
  let rig: Rig;
  beforeAll(async () => {
    own = await startRigOnOwnRedis();
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

  test('when Redis is stopped, then /readyz is 503 naming the store, /healthz stays 200, and readiness returns with Redis', async () => {
    await redis.kill();
    const down = await untilNotReady(rig);
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ status: 'not_ready', reason: 'store unavailable', checks: { store: 'unavailable', upstream: 'ok' } });
    expect((await rig.agent().get('/healthz')).status).toBe(200);

    await redis.restart();
    expect(await untilReady(rig)).toBe(200);
    expect((await readyz(rig)).body.checks).toEqual({ store: 'ok', upstream: 'ok' });
  });

  test('when Redis hangs (SIGSTOP), then /readyz answers 503 within its check bound instead of hanging', async () => {
    redis.pause();
    try {
      const hung = await untilNotReady(rig);
      expect(hung.status).toBe(503);
      expect(hung.body.checks.store).toBe('unavailable');
    } finally {
      redis.resume();
    }
    expect(await untilReady(rig)).toBe(200);
  });
});

describe('readiness when the data server goes away', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(() => rig.close());

  test('when the data server answers too slowly, then /readyz is 503 naming the upstream, and 200 once it is quick again', async () => {
    rig.sim.setFaults({ latencyMs: 3000 });
    try {
      const slow = await readyz(rig);
      expect(slow.status).toBe(503);
      expect(slow.body).toEqual({ status: 'not_ready', reason: 'upstream unavailable', checks: { store: 'ok', upstream: 'unavailable' } });
      expect(slow.ms).toBeLessThan(2900);
    } finally {
      rig.sim.setFaults({});
    }
    expect(await untilReady(rig)).toBe(200);
  });

  test('when the data server port is closed, then /readyz is 503 naming the upstream while the store stays ok', async () => {
    expect((await readyz(rig)).status).toBe(200);
    await rig.sim.close();
    const gone = await untilNotReady(rig);
    expect(gone.status).toBe(503);
    expect(gone.body).toEqual({ status: 'not_ready', reason: 'upstream unavailable', checks: { store: 'ok', upstream: 'unavailable' } });
  });
});

describe('readiness while draining', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(() => rig.close());

  test('when the service drains, then /readyz is 503 draining at once while /healthz and sessions keep working', async () => {
    const agent = await rig.login();
    expect((await readyz(rig)).status).toBe(200);
    rig.service.drain();
    const draining = await readyz(rig);
    expect(draining.status).toBe(503);
    expect(draining.body).toEqual({ status: 'not_ready', reason: 'draining', checks: {} });
    expect((await rig.agent().get('/healthz')).status).toBe(200);
    // Draining only stops new traffic from being routed here; requests that still arrive are served.
    const echo = await agent.get('/api/echo');
    expect(echo.status).toBe(200);
    expect(rig.sim.seen().filter((r) => r.path === '/echo' && r.auth === 'ok')).toHaveLength(1);
  });
});
