/**
 * SIGKILLs a Sentinel group's master and judges readiness, relayed requests and a refresh race across it
 */
import { sidOf } from '../../helpers/cookies.js';
import { poll, until } from '../../helpers/wait.js';
import { recordFigure } from '../../helpers/figures.js';
import { call, login } from '../multi-instance/cluster.js';
import { metric, tokensSeen } from '../multi-instance/cache-metrics.js';
import { sentinelRig } from './sentinel-rig.js';
import { lossLogs, loginSessions } from './failover-checks.js';
import { READINESS_PROBE_INTERVAL_MS } from '../../../src/http/routes/ops-routes.js';

// A short lease, so the refresh lease of a holder whose upstream call spans the failover lapses on the new
// master before that call is done (its renewals find no master meanwhile): a second instance then takes it.
const LEASE_TTL_MS = 1000;
// The race session's mints are this slow: longer than a promotion on a busy machine, so the first holder's
// mint is still out when the second holder, after the promotion, reads the token state and mints too.
const MINT_MS = 6000;
const POSTS = 6;

/**
 * GET /readyz on `url` every ~100 ms until `stop()`: each status as it comes (`seen`, 0 when no HTTP answer
 * came), and `done`, which resolves with them once stopped.
 */
function readinessTrace(url: string) {
  const seen: Array<{ at: number; status: number }> = [];
  let stopped = false;
  const done = until(
    `the readiness trace of ${url} to be stopped`,
    async () => {
      if (stopped) return seen;
      const at = Date.now();
      const status = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5000) }).then(
        async (res) => (await res.arrayBuffer(), res.status),
        () => 0,
      );
      seen.push({ at, status });
      return false;
    },
    // Traced for the whole test at most (its own timeout).
    { timeoutMs: 90_000, intervalMs: 100 },
  );
  done.catch(() => undefined); // a test that failed before stopping it awaits nothing
  return { seen, done, stop: () => void (stopped = true) };
}

describe('riding out a Sentinel failover: readiness, relayed requests, refresh races', () => {
  const rig = sentinelRig({ label: 'failover-ride-out', env: { TOKEN_LEASE_TTL_MS: String(LEASE_TTL_MS) } });

  test('when the master is SIGKILLed and the replica promoted, then /readyz stays 200 on every instance, a POST query issued meanwhile reaches the data server once, two refreshes racing across it keep one token, and a refresh that a logout overtook leaves nothing alive', async () => {
    const { group, cluster } = rig;
    const urls = cluster.instances.map((i) => i.url);
    const cookies = await loginSessions(cluster, POSTS);
    // The race session has a secret of its own: its tokens upstream can be told apart.
    const raceSecret = cluster.sim.createSecret({ alias: 'failover_race' });
    const racer = await login(urls[0]!, raceSecret.value);
    const raceKeys = cluster.keys(sidOf(racer));
    // And one whose refresh is out when it is logged out on another instance.
    const leaverSecret = cluster.sim.createSecret({ alias: 'failover_leaver' });
    const leaver = await login(urls[0]!, leaverSecret.value);
    const leaverKeys = cluster.keys(sidOf(leaver));
    for (const c of [...cookies, racer, leaver]) expect((await call(urls[0]!, '/api/echo', c)).status).toBe(200);
    const raceTokens = () => cluster.sim.tokens().filter((t) => t.secretAlias === raceSecret.alias);
    const leaverTokens = () => cluster.sim.tokens().filter((t) => t.secretAlias === leaverSecret.alias);
    expect(raceTokens()).toHaveLength(1);
    expect(leaverTokens()).toHaveLength(1);
    const supersededDeletes = async () =>
      (
        await Promise.all(
          cluster.instances.map((i) => metric(i, 'tgbff_token_deletes_total', 'reason="superseded",result="ok"')),
        )
      ).reduce((a, b) => a + b, 0);
    const supersededBefore = await supersededDeletes();

    const doomedPort = await group.masterPort();
    const doomed = doomedPort === group.master.port ? group.master : group.replica;
    const heir = doomed === group.master ? group.replica : group.master;
    const master = group.client(doomedPort);

    // Readiness of every instance, traced from before the kill until the failover is over.
    const traces = urls.map((u) => readinessTrace(u));

    // The first holder: its token refused upstream, it takes the lease and mints, slowly.
    for (const { token } of [...raceTokens(), ...leaverTokens()]) cluster.sim.revokeToken(token);
    const mintsBefore = cluster.sim.counts()['POST /requesttoken'] ?? 0;
    cluster.sim.setFaults({ tokenLatencyMs: MINT_MS });
    const first = call(urls[0]!, '/api/echo', racer);
    const refreshing = call(urls[0]!, '/api/echo', leaver);
    await poll(
      async () => (await master.exists(raceKeys.lease, leaverKeys.lease)) === 2,
      10_000,
      'the first holders to take their leases',
    );
    // Everything so far on the replica (asynchronous replication), the lease too.
    expect(await group.replicated(doomedPort)).toBe(1);
    // A few readiness answers of every instance before the kill.
    const before = Date.now();
    await until('three readiness answers from each instance', () =>
      traces.every((t) => t.seen.filter((s) => s.at >= before).length >= 3),
    );

    const lossSeen = lossLogs(cluster);
    const killedAt = Date.now();
    await doomed.kill();
    // Every instance has seen the master go: what is sent from here on meets the failover, not a dead socket.
    await lossSeen();
    // Issued while there is no master: each must wait for the new one, then go upstream exactly once.
    const posts = cookies.map((c, k) =>
      call(urls[k % urls.length]!, `/api/query/social/hello?name=once-${k}`, c, 'POST'),
    );
    // The second holder, on another instance: it finds the first one's lease lapsed on the new master.
    const second = call(urls[1]!, '/api/echo', racer);
    // The logout, on a third instance, while the leaver's refresh is still out.
    const logout = call(urls[2]!, '/auth/logout', leaver, 'POST');
    await group.waitForMaster(heir.port, 30_000);
    const promotedAt = Date.now();
    // Readiness until the failover is over: up to an answer of each instance from a probe begun after the
    // promotion (a verdict is reused for READINESS_PROBE_INTERVAL_MS after its probe).
    await until('a readiness answer of each instance from a probe after the failover', () =>
      traces.every((t) => t.seen.some((s) => s.at >= promotedAt + READINESS_PROBE_INTERVAL_MS)),
    );
    for (const t of traces) t.stop();
    const seen = await Promise.all(traces.map((t) => t.done));
    const postReplies = await Promise.all(posts);
    const postAnswers = postReplies.map((a) => a.status);
    const raceAnswers = [(await first).status, (await second).status];
    const leaverAnswers = [(await logout).status, (await refreshing).status];
    cluster.sim.setFaults({});
    const mints = (cluster.sim.counts()['POST /requesttoken'] ?? 0) - mintsBefore;

    const relayed = cluster.sim.seen().filter((s) => s.method === 'POST' && s.path === '/query/social/hello');
    const perPost = cookies.map((_c, k) =>
      relayed.filter((s) => new URLSearchParams(s.query).get('name') === `once-${k}`).map((s) => s.status),
    );
    // What the store said behind any 503, per instance (for a failure's story; no verdict on it).
    const storeErrors = cluster.instances.map((i) =>
      i
        .output()
        .split('\n')
        .filter((l) => l.includes('Session store unavailable'))
        .map((l) => /"message":"([^"]{0,80})/.exec(l.slice(l.indexOf('"err"')))?.[1] ?? '?'),
    );
    // Clients that ioredis ended by itself in the failover (and the stores connected again), per instance.
    const ended = cluster.instances.map(
      (i) =>
        i
          .output()
          .split('\n')
          .filter((l) => l.includes('ended by itself')).length,
    );
    const during = seen.map((trace) => trace.filter((s) => s.at >= killedAt && s.at <= promotedAt));
    recordFigure(
      `sentinel failover ridden out: new master ${(promotedAt - killedAt) / 1000} s after the kill; /readyz ` +
        `${during.map((t) => t.length).join('/')} answers per instance meanwhile, not 200: ` +
        `${JSON.stringify(seen.map((t) => t.filter((s) => s.status !== 200).length))}; ${POSTS} POSTs ${JSON.stringify(postAnswers)}, ` +
        `upstream ${JSON.stringify(perPost)}; refresh race ${JSON.stringify(raceAnswers)}, ${mints} mints; ` +
        `logout and the refresh it met ${JSON.stringify(leaverAnswers)}; POST codes ` +
        `${JSON.stringify(postReplies.map((r) => r.body.error?.code ?? ''))}; store errors ${JSON.stringify(storeErrors)}; clients ended by themselves ${JSON.stringify(ended)}`,
    );

    // Polled densely through the failover on every instance (else the verdict below says little): at least
    // once per probe interval, the most often a verdict can change.
    expect(during.map((t) => t.length >= (promotedAt - killedAt) / READINESS_PROBE_INTERVAL_MS - 1)).toEqual(
      urls.map(() => true),
    );
    expect({
      // 1. Readiness answered 200 every time on every instance.
      readinessNot200: seen.map((t) =>
        t.filter((s) => s.status !== 200).map((s) => `${s.status} at +${s.at - killedAt} ms`),
      ),
      // 2. Each POST query waited and answered 200, and reached the data server exactly once.
      postAnswers,
      postsUpstream: perPost,
      // 3. Both holders minted (the race did happen) and answered; the later write did not replace the
      // earlier one: one token of the session stays alive upstream, the other was deleted as superseded.
      raceAnswers,
      // Both race holders' mints and the leaver's refresh.
      mints,
      raceTokensAlive: raceTokens().length,
      supersededDeletes: (await supersededDeletes()) - supersededBefore,
      // 3b. The logout came after the refresh began and before it wrote: the refresh's late write must not
      // bring the ended session's token back. Nothing of it left alive upstream, no token state stored.
      // Its request answers 401 (the session ended while its token was minted), or 200 had the refresh
      // written first (the logout then deleted the new token).
      logout: leaverAnswers[0],
      refreshMet: [200, 401].includes(leaverAnswers[1]!),
      leaverTokensAlive: leaverTokens().length,
      leaverTokenState: await group.client(heir.port).exists(leaverKeys.token),
    }).toEqual({
      readinessNot200: urls.map(() => []),
      postAnswers: cookies.map(() => 200),
      postsUpstream: cookies.map(() => [200]),
      raceAnswers: [200, 200],
      mints: 3,
      raceTokensAlive: 1,
      supersededDeletes: 1,
      logout: 204,
      refreshMet: true,
      leaverTokensAlive: 0,
      leaverTokenState: 0,
    });
    // The one alive is the one stored: every instance relays with it, and nobody mints again.
    const mark = cluster.sim.seen().length;
    for (const url of urls) expect((await call(url, '/api/echo', racer)).status).toBe(200);
    expect([...tokensSeen(cluster, mark)]).toEqual([raceTokens()[0]!.token]);
    expect((cluster.sim.counts()['POST /requesttoken'] ?? 0) - mintsBefore).toBe(3);
    expect(await group.client(heir.port).exists(raceKeys.session, raceKeys.token)).toBe(2);
  });
});
