import { startRig, untilReady, type Rig } from '../../helpers/app-rig.js';

async function readyz(rig: Rig) {
  const started = performance.now();
  const res = await rig.agent().get('/readyz');
  return { status: res.status, body: res.body, headers: res.headers, ms: performance.now() - started };
}

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
      expect(slow.body).toEqual({
        status: 'not_ready',
        reason: 'upstream unavailable',
        checks: { store: 'ok', upstream: 'unavailable' },
      });
      expect(slow.ms).toBeLessThan(2900);
    } finally {
      rig.sim.setFaults({});
    }
    expect(await untilReady(rig)).toBe(200);
  });

  test('when the data server port is closed, then /readyz is 503 naming the upstream while the store stays ok', async () => {
    expect((await readyz(rig)).status).toBe(200);
    await rig.sim.close();
    const gone = await readyz(rig);
    expect(gone.status).toBe(503);
    expect(gone.body).toEqual({
      status: 'not_ready',
      reason: 'upstream unavailable',
      checks: { store: 'ok', upstream: 'unavailable' },
    });
    expect(gone.ms).toBeLessThan(3000);
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
