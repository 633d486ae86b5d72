/**
 * Bounds the slowest request across a Cluster failover under load
 */
import { poll } from '../../helpers/wait.js';
import { sidOf } from '../../helpers/cookies.js';
import { startRig, timedGet } from '../../helpers/app-rig.js';
import { loginSessions, remintEverySession, sessionAnswers } from './failover-checks.js';
import { clusterRig } from './cluster-rig.js';
import { figures, steadyLoad, windowFigures } from './steady-load.js';
import { sessionKey } from '../../helpers/redis-prefix.js';
import { recordFigure } from '../../helpers/figures.js';

const SESSIONS = 30;
// A replica starts its election after the node timeout (1 s here) plus a short random delay.
const WINDOW_BOUND_SEC = 15;
// Store steps ride the promotion out: a request waits about the failover time, within this much more.
const REQUEST_BOUND_MS = 3000;
// STORE_FAILOVER_WAIT_MS of the three processes: above a promotion on a busy machine (2-3 s).
const WAIT_MS = 6000;
// The store's wait when the cluster stays down (the last case): judged against its own value, so it need
// not cover a promotion.
const DOWN_WAIT_MS = 3000;
// Only a write on the wire to the killed primary could fail (it may have run, so it is not sent again). A
// relayed GET's store steps before its answer are reads (the session, the token state), issued again when
// they meet the lost connection, and its one write (the session's touch) goes after the answer: so none.

describe('failover under load: a Redis Cluster master killed while three instances serve 30 sessions', () => {
  const rig = clusterRig({
    label: 'failover-cluster',
    instances: 3,
    nodeTimeoutMs: 1000,
    env: { STORE_FAILOVER_WAIT_MS: String(WAIT_MS) },
    setupTimeoutMs: 60_000,
  });

  let heirPort: number | undefined;
  let doomedPort: number | undefined;

  test('when a master is SIGKILLed and its replica promoted, then requests wait for the promotion instead of failing, no session is lost, and a re-mint is still one per session', async () => {
    const cookies = await loginSessions(rig.cluster, SESSIONS);
    const owners = await Promise.all(cookies.map((c) => rig.redis.ownerOf(sessionKey(rig.cluster.prefix, sidOf(c)))));
    const roles = await rig.redis.roles();
    // The master holding the most sessions dies; its sessions must come through on its replica.
    const doomed = roles
      .map((r) => ({ ...r, held: owners.filter((o) => o === r.master).length }))
      .sort((a, b) => b.held - a.held)[0]!;
    expect(doomed.held).toBeGreaterThan(0);
    await rig.redis.replicated();
    const mintsBefore = rig.cluster.sim.counts()['POST /requesttoken'] ?? 0;

    const load = steadyLoad(
      rig.cluster.instances.map((i) => i.url),
      cookies,
      { path: '/api/echo', pauseMs: 100 },
    );
    // Every session is in its stride (a few requests answered) before the kill.
    await load.untilAnswered(3);
    const killedAt = Date.now();
    await rig.redis.nodes.find((n) => n.port === doomed.master)!.kill();
    await poll(
      async () => (await rig.redis.roles()).some((r) => r.master === doomed.replica),
      30_000,
      `replica ${doomed.replica} promoted`,
    );
    const promotedAt = Date.now();
    await poll(async () => load.healthyFor(2000, 60), 30_000, 'every request of the last 2 s to succeed');
    const healthyAt = Date.now();
    // And stays so: every session has had more requests answered since.
    await load.untilAnswered(3, healthyAt);
    const samples = await load.stop();
    const f = figures(samples);
    const w = windowFigures(samples, killedAt, promotedAt);
    recordFigure(
      `cluster failover under load: ${SESSIONS} sessions (${doomed.held} on the killed master) on 3 instances, ${f.requests} requests (${f.rps}/s), ` +
        `failed ${f.failed} ${JSON.stringify(f.kinds)}, ${f.sessionsHit.length} sessions saw a failure ` +
        `(${f.sessionsHit.filter((i) => owners[i] !== doomed.master).length} of them on surviving masters: the whole cluster refuses while a slot has no master, cluster-require-full-coverage), failover window ${f.windowSec} s, healthy again ${(healthyAt - killedAt) / 1000} s after the kill, slowest request ${f.slowestMs} ms; ` +
        `replica promoted ${(promotedAt - killedAt) / 1000} s after the kill, in that window ${w.requests} requests, ${w.failed} failed, p99 ${w.p99Ms} ms, slowest ${w.slowestMs} ms`,
    );

    expect({ failed: f.failed, kinds: f.kinds }).toEqual({ failed: 0, kinds: {} });
    expect(f.windowSec).toBeLessThan(WINDOW_BOUND_SEC);
    // The requests of the window waited for the promotion: about the failover time, not an error.
    expect(w.requests).toBeGreaterThan(0);
    expect(f.slowestMs).toBeLessThan(promotedAt - killedAt + REQUEST_BOUND_MS);
    expect(
      (await sessionAnswers(rig.cluster, cookies)).filter((a) => a.status !== 200 || a.authenticated !== true),
    ).toEqual([]);
    expect(rig.cluster.sim.counts()['POST /requesttoken'] ?? 0).toBe(mintsBefore);
    const moved = cookies
      .filter((_c, i) => owners[i] === doomed.master)
      .map((c) => sessionKey(rig.cluster.prefix, sidOf(c)));
    heirPort = doomed.replica!;
    doomedPort = doomed.master;
    const heir = rig.redis.client(heirPort);
    expect(await Promise.all(moved.map((key) => heir.exists(key)))).toEqual(moved.map(() => 1));

    const remint = await remintEverySession(rig.cluster, cookies);
    expect(remint.answers.filter((s) => s !== 200)).toEqual([]);
    expect(remint.mints).toBe(SESSIONS);
  });

  test('when a slot loses its master and its replica, then a request answers 503 at the bound, and the next one at once', async () => {
    expect(heirPort).toBeDefined();
    // The store's wait is under test here, not a process: an in-process service on the same cluster, with
    // a wait of its own (the one above must cover a promotion; this one is only waited out).
    const service = await startRig({
      label: 'failover-cluster-down',
      store: { env: { REDIS_CLUSTER_NODES: rig.redis.nodeList } },
      env: { STORE_FAILOVER_WAIT_MS: String(DOWN_WAIT_MS) },
    });
    try {
      const agent = await service.login();
      expect((await agent.get('/api/echo')).status).toBe(200);
      // The promoted replica has no replica of its own: its slots stay without a master, and with
      // cluster-require-full-coverage every primary refuses (CLUSTERDOWN) from then on.
      await rig.redis.nodes.find((n) => n.port === heirPort)!.kill();
      const survivor = rig.redis.client(
        rig.redis.nodes.find((n) => n.port !== heirPort && n.port !== doomedPort)!.port,
      );
      await poll(
        async () => (await survivor.cluster('INFO')).includes('cluster_state:fail'),
        20_000,
        'the cluster to go down',
      );
      const first = await timedGet(agent);
      const next = await timedGet(agent);
      recordFigure(
        `cluster down past the bound (${DOWN_WAIT_MS} ms): first request ${first.status} in ${first.ms} ms, next ${next.status} in ${next.ms} ms`,
      );
      expect(first).toMatchObject({ status: 503, code: 'store_unavailable' });
      // At the bound: a try in flight at the bound finishes first (one command timeout, 800 ms).
      expect(first.ms).toBeGreaterThanOrEqual(DOWN_WAIT_MS - 1000);
      expect(first.ms).toBeLessThan(DOWN_WAIT_MS + 2500);
      expect(next).toMatchObject({ status: 503, code: 'store_unavailable' });
      // At once: well before the bound, which a request that waited again would run to.
      expect(next.ms).toBeLessThan(DOWN_WAIT_MS / 2);
    } finally {
      await service.close();
    }
  });
});
