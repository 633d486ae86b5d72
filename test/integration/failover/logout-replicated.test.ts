/**
 * Freezes and kills the replica of a private Sentinel group under running service processes
 */
import type { Redis } from 'ioredis';
import { CSRF, call, login } from '../multi-instance/cluster.js';
import { sentinelRig } from './sentinel-rig.js';
import { recordFigure } from '../../helpers/figures.js';
import { sidOf } from '../../helpers/cookies.js';
import { until } from '../../helpers/wait.js';

/**
 * A logout's tombstone counts once a replica has it (REDIS_LOGOUT_REPLICA_WAIT_MS, Redis WAIT). The race it
 * closes (the master acknowledges the tombstone and dies before sending it on, so the promoted replica never
 * had it) cannot be forced on cue: it needs the kill to land between two of Redis's own steps. So this tests
 * the mechanism itself: a replica that cannot acknowledge (SIGSTOP) turns the logout into a 503 with the
 * cookie cleared; a running one answers 204; a master with no replica attached is not waited on.
 */
const WAIT_MS = 300;

describe('a logout counts once a replica has its tombstone (Sentinel)', () => {
  // Sentinels must not call the frozen replica down mid-test; nothing here fails over.
  const rig = sentinelRig({
    label: 'logout-replicated',
    instances: 2,
    group: { downAfterMs: 5000 },
    env: { REDIS_LOGOUT_REPLICA_WAIT_MS: String(WAIT_MS) },
  });

  const logout = async (cookie: string) => {
    const from = Date.now();
    const res = await fetch(`${rig.cluster.instances[0]!.url}/auth/logout`, {
      method: 'POST',
      headers: { ...CSRF, Cookie: cookie },
    });
    const text = await res.text();
    return {
      status: res.status,
      code: (JSON.parse(text || '{}') as { error?: { code?: string } }).error?.code,
      clears: /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(res.headers.get('set-cookie') ?? ''),
      ms: Date.now() - from,
    };
  };
  /** How many WAITs a node has run (INFO commandstats). */
  const waits = async (node: Redis): Promise<number> =>
    Number(/cmdstat_wait:calls=(\d+)/.exec(await node.info('commandstats'))?.[1] ?? 0);
  const endedEverywhere = async (cookie: string) =>
    (await Promise.all(rig.cluster.instances.map((i) => call(i.url, '/api/echo', cookie)))).map((a) => a.status);

  test('when the replica acknowledges, then the logout answers 204 and holds on every instance', async () => {
    const cookie = await login(rig.cluster.instances[1]!.url, rig.cluster.secret);
    const out = await logout(cookie);
    expect(out).toMatchObject({ status: 204, clears: true });
    expect(await endedEverywhere(cookie)).toEqual([401, 401]);
    // On the replica too: what a promotion would keep.
    const tombstone = rig.cluster.keys(sidOf(cookie)).tombstone;
    expect(await rig.group.client(rig.group.replica.port).exists(tombstone)).toBe(1);
    recordFigure(`logout with a replica acknowledging: 204 in ${out.ms} ms`);
  });

  test('when the replica cannot acknowledge (SIGSTOP), then the logout answers 503 at the wait, cookie cleared', async () => {
    const cookie = await login(rig.cluster.instances[1]!.url, rig.cluster.secret);
    rig.group.replica.pause();
    let out: Awaited<ReturnType<typeof logout>>;
    try {
      out = await logout(cookie);
    } finally {
      rig.group.replica.resume();
    }
    recordFigure(`logout with the replica frozen: ${out.status} ${out.code ?? ''} in ${out.ms} ms`);
    expect(out).toMatchObject({ status: 503, code: 'store_unavailable', clears: true });
    expect(out.ms).toBeGreaterThanOrEqual(WAIT_MS - 50);
    expect(out.ms).toBeLessThan(WAIT_MS + 1500);
  });

  test('when the master has no replica attached, then a logout is not waited on and answers 204', async () => {
    const cookie = await login(rig.cluster.instances[1]!.url, rig.cluster.secret);
    await rig.group.replica.kill();
    const master = rig.group.client(rig.group.master.port);
    const replicas = async () => ((await master.role()) as [string, number, unknown[]])[2].length;
    await until('the master to stop listing its replica', async () => (await replicas()) === 0);
    // Not waited on: no WAIT reached the master (one would have run to its timeout, then answered 503).
    const waitsBefore = await waits(master);
    const out = await logout(cookie);
    expect(out).toMatchObject({ status: 204, clears: true });
    expect((await waits(master)) - waitsBefore).toBe(0);
    expect(await endedEverywhere(cookie)).toEqual([401, 401]);
  });
});
