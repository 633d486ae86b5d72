import { startRig, type Rig } from '../../helpers/app-rig.js';
import { freePort } from '../../helpers/ports.js';

// ioredis's connect() does not settle while no sentinel answers; start-up must not wait for it forever.
describe('when no sentinel answers at start-up', () => {
  let rig: Rig;
  let startedInMs: number;
  beforeAll(async () => {
    const ports = [await freePort(), await freePort()];
    const started = performance.now();
    rig = await startRig({
      store: { env: { REDIS_SENTINELS: ports.map((p) => `127.0.0.1:${p}`).join(','), REDIS_SENTINEL_NAME: 'nobody' } },
    });
    startedInMs = performance.now() - started;
  });
  afterAll(() => rig?.close());

  test('then the service still starts, within a few seconds, and says why it is not ready', async () => {
    expect(startedInMs).toBeLessThan(8000);
    const ready = await rig.agent().get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.store).toBe('unavailable');
    expect(rig.logs()).toContain('redis not reachable at start-up; retrying');
  });

  test('then a login is a prompt 503 store_unavailable, not a hang', async () => {
    const started = performance.now();
    const res = await rig.agent().post('/auth/login').send({ secret: rig.secret, graph: 'social' });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('store_unavailable');
    expect(performance.now() - started).toBeLessThan(3000);
  });
});
