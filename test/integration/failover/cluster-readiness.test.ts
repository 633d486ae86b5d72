/**
 * @paired kills Cluster primaries and times /readyz around the failover bound
 */
import { readinessUntil, readyz, startRig, untilReady, type Rig } from '../../helpers/app-rig.js';
import { sidOf } from '../../helpers/cookies.js';
import { poll } from '../../helpers/poll.js';
import { sessionKey } from '../../helpers/redis-prefix.js';
import { recordFigure } from '../../helpers/figures.js';
import { call, login } from '../multi-instance/cluster.js';
import { startReplicatedCluster, type ReplicatedCluster } from './replicated-cluster.js';

// Above a promotion on a busy machine (2–3 s at cluster-node-timeout 1000), short enough to wait out.
const WAIT_MS = 5000;
const SESSIONS = 12;

/**
 * With `cluster-require-full-coverage no` the surviving primaries keep serving their slots when one slot
 * range loses its master, and a PING to any of them answers: readiness must still say "not ready" once
 * that range has been without a master past STORE_FAILOVER_WAIT_MS, as on a standalone Redis.
 */
describe('readiness on a Redis Cluster with cluster-require-full-coverage no', () => {
  let redis: ReplicatedCluster;
  let rig: Rig;
  let base: string;
  beforeAll(async () => {
    redis = await startReplicatedCluster({ nodeTimeoutMs: 1000 });
    for (const node of redis.nodes) await redis.client(node.port).config('SET', 'cluster-require-full-coverage', 'no');
    rig = await startRig({
      label: 'cluster-readiness',
      store: { env: { REDIS_CLUSTER_NODES: redis.nodeList } },
      env: { STORE_FAILOVER_WAIT_MS: String(WAIT_MS), LOGIN_RATE_LIMIT: '1000' },
    });
    base = await rig.listen();
  }, 90_000);
  afterAll(async () => {
    await rig?.close();
    await redis?.stop();
  });

  const kill = (port: number) => redis.nodes.find((n) => n.port === port)!.kill();

  test('when a primary dies and its replica is promoted within the bound, then /readyz stays 200 throughout', async () => {
    expect((await readyz(rig)).status).toBe(200);
    const doomed = (await redis.roles())[0]!;
    const from = Date.now();
    await kill(doomed.master);
    let promotedAt: number | undefined;
    const seen = await readinessUntil(rig, from, 20_000, async () => {
      if (promotedAt === undefined && (await redis.roles()).some((r) => r.master === doomed.replica))
        promotedAt = Date.now() - from;
      // A second past the promotion: the probe has seen the new slot table.
      return promotedAt !== undefined && Date.now() - from > promotedAt + 1500;
    });
    recordFigure(`cluster readiness: replica promoted ${promotedAt} ms after the kill, /readyz ${seen.length} times`);
    // The case under test: a failover shorter than the bound.
    expect(promotedAt).toBeDefined();
    expect(promotedAt!).toBeLessThan(WAIT_MS - 1000);
    expect(seen.filter((s) => s.status !== 200)).toEqual([]);
  }, 40_000);

  test('when a slot range loses its master and its replica, then /readyz stays 200 within the bound, turns 503 past it while the other slots serve, and 200 once the range has a master again', async () => {
    const cookies = await Promise.all(Array.from({ length: SESSIONS }, () => login(base, rig.secret)));
    const owners = await Promise.all(cookies.map((c) => redis.ownerOf(sessionKey(rig.prefix, sidOf(c)))));
    const victim = (await redis.roles()).find((r) => r.replica !== undefined)!;
    const survivors = cookies.filter((_c, i) => owners[i] !== victim.master);
    expect(survivors.length).toBeGreaterThan(0);
    expect((await readyz(rig)).status).toBe(200);

    const from = Date.now();
    await Promise.all([kill(victim.master), kill(victim.replica!)]);
    const seen = await readinessUntil(rig, from, WAIT_MS + 6000);
    recordFigure(
      `cluster readiness, a slot range without a master (bound ${WAIT_MS} ms): first 503 at ${seen.at(-1)!.at} ms, ` +
        `last 200 at ${seen.filter((s) => s.status === 200).at(-1)?.at} ms`,
    );
    // Ready within the bound (a failover could still be under way), not ready past it.
    expect(seen.filter((s) => s.at < WAIT_MS - 500 && s.status !== 200)).toEqual([]);
    expect(seen.at(-1)!.status).toBe(503);
    expect(seen.at(-1)!.at).toBeGreaterThanOrEqual(WAIT_MS);
    // The shared probe's verdict lasts up to a second, and one probe runs up to its 1 s bound.
    expect(seen.at(-1)!.at).toBeLessThan(WAIT_MS + 3000);
    expect((await readyz(rig)).body).toMatchObject({ status: 'not_ready', checks: { store: 'unavailable' } });
    // What a PING alone saw: the surviving primaries answer, and serve their own sessions.
    expect((await Promise.all(survivors.map((c) => call(base, '/api/echo', c)))).map((a) => a.status)).toEqual(
      survivors.map(() => 200),
    );

    await redis.nodes.find((n) => n.port === victim.master)!.restart();
    await poll(
      async () => (await redis.client(victim.master).cluster('INFO')).includes('cluster_state:ok'),
      20_000,
      'the restarted primary to rejoin',
    );
    expect(await untilReady(rig, 20_000)).toBe(200);
  }, 60_000);
});
