/**
 * Kills a Sentinel group's data nodes and times answers and /readyz around the wait bound
 */
import { readyz, timedGet, untilReady } from '../../helpers/app-rig.js';
import { recordFigure } from '../../helpers/figures.js';
import { sentinelAppRig } from './sentinel-rig.js';

// Short, so "past the bound" comes quickly (the case needs no promotion to fit in it), yet long enough that
// the kills and the first readiness answer, on a machine whose cores are taken, come well within it (at 3 s,
// under stress-ng --cpu 2, they did not).
const WAIT_MS = 6000;

/**
 * A Sentinel group whose master and replica both die has nobody to promote: the client asks the sentinels,
 * is sent to the dead master, and keeps looking. Requests wait for the bound, then fail as before.
 */
describe('a Sentinel-managed Redis that stays down past the failover bound', () => {
  const sentinel = sentinelAppRig({ label: 'sentinel-down', env: { STORE_FAILOVER_WAIT_MS: String(WAIT_MS) } });

  test('when the master and its replica are killed, then a request answers 503 at the bound and the next at once, /readyz is 200 within the bound and 503 past it, and both recover with a master', async () => {
    const { group, rig } = sentinel;
    const agent = await rig.login();
    expect((await agent.get('/api/echo')).status).toBe(200);
    expect((await readyz(rig)).status).toBe(200);

    const from = Date.now();
    await Promise.all([group.master.kill(), group.replica.kill()]);
    // Within the bound: the connection is being looked for, so the instance stays ready.
    const early = await readyz(rig);
    const earlyAt = Date.now() - from;
    const first = await timedGet(agent);
    const firstAt = Date.now() - from;
    const next = await timedGet(agent);
    const late = await readyz(rig);
    recordFigure(
      `sentinel down past the bound (${WAIT_MS} ms): first request ${first.status} in ${first.ms} ms ` +
        `(${firstAt} ms after the kill), next ${next.status} in ${next.ms} ms; /readyz ${early.status} then ${late.status}`,
    );
    // The set-up holds: the readiness answer came within the bound, where it must be ready.
    expect(earlyAt).toBeLessThan(WAIT_MS - 1000);
    expect(early.status).toBe(200);
    expect(first).toMatchObject({ status: 503, code: 'store_unavailable' });
    // At the bound, never before it: the bound runs from the connection's loss (failover-wait.ts), which came
    // after the kill, so the answer is at least WAIT_MS after `from` (100 ms for clock granularity). Measured
    // from the kill, not from the request's start, which waited for the readiness answer first: on a busy
    // machine that took 900 ms, and the request (rightly) waited only the rest of the bound.
    expect(firstAt).toBeGreaterThanOrEqual(WAIT_MS - 100);
    expect(firstAt).toBeLessThan(WAIT_MS + 1500);
    expect(next).toMatchObject({ status: 503, code: 'store_unavailable' });
    // At once: well before the bound, which a request that waited again would run to.
    expect(next.ms).toBeLessThan(WAIT_MS / 2);
    expect(late.status).toBe(503);
    expect(late.body).toMatchObject({ status: 'not_ready', checks: { store: 'unavailable' } });

    // A master again (the old one, restarted empty): ready, and the store answers (the session is gone).
    await group.master.restart();
    expect(await untilReady(rig, 20_000)).toBe(200);
    expect((await rig.login().then((a) => a.get('/api/echo'))).status).toBe(200);
  });
});
