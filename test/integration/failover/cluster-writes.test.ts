/**
 * SIGKILLs a Redis Cluster primary while logins and token refreshes are on their way
 */
import { poll, until } from '../../helpers/wait.js';
import { sidOf } from '../../helpers/cookies.js';
import { recordFigure } from '../../helpers/figures.js';
import { call, type Cluster } from '../multi-instance/cluster.js';
import { loginSessions, tryLogin } from './failover-checks.js';
import { clusterRig } from './cluster-rig.js';
import { redisKeys } from '../../../src/store/keys.js';

const LOGINS = 6;
const PER_SESSION = 4;

/** The mints the data server saw for one secret (its token requests carry it in their body). */
const mintRequests = (cluster: Cluster, secret: string) =>
  cluster.sim
    .seen()
    .filter((s) => s.method === 'POST' && s.path === '/requesttoken' && s.bodyText?.includes(secret) === true);
const mintsFor = (cluster: Cluster, secret: string): number => mintRequests(cluster, secret).length;

/** The warnings and errors the instances logged since `since` (epoch ms): what a failed count looks into. */
const loggedTrouble = (cluster: Cluster, since: number): string[] =>
  cluster.instances.flatMap((instance, n) =>
    instance
      .output()
      .split('\n')
      .flatMap((line) => {
        try {
          // pino's level numbers (40 warn, 50 error); `time` is ISO text.
          const entry = JSON.parse(line) as { level?: number; time?: string; msg?: string; err?: { message?: string } };
          const at = Date.parse(entry.time ?? '');
          if ((entry.level ?? 0) < 40 || !(at >= since)) return [];
          return [`instance ${n} +${at - since} ms: ${entry.msg}${entry.err ? ` (${entry.err.message})` : ''}`];
        } catch {
          return [];
        }
      }),
  );

describe('logins and token refreshes meeting a Redis Cluster primary failover', () => {
  const rig = clusterRig({
    label: 'cluster-writes',
    instances: 2,
    nodeTimeoutMs: 1000,
    env: { STORE_FAILOVER_WAIT_MS: '8000' },
  });

  test('when a primary is SIGKILLed with logins and refreshes on their way, then logins succeed (503 only within the failover, leaving nothing), and each session mints once', async () => {
    const { cluster, redis } = rig;
    const urls = cluster.instances.map((i) => i.url);
    // The logins of the failover use a secret of their own: their mints and tokens can be told apart.
    const loginSecret = cluster.sim.createSecret({ alias: 'cluster_failover_logins' });
    const cookies = await loginSessions(cluster, 30);
    const owners = await Promise.all(cookies.map((c) => redis.ownerOf(cluster.keys(sidOf(c)).token)));
    const roles = await redis.roles();
    const doomed = roles
      .map((r) => ({ ...r, held: owners.filter((o) => o === r.master).length }))
      .sort((a, b) => b.held - a.held)[0]!;
    // The sessions whose token state (and lease) the killed primary holds: their refreshes meet the failover.
    const refreshing = cookies.filter((_c, i) => owners[i] === doomed.master);
    expect(refreshing.length).toBeGreaterThanOrEqual(5);
    for (const c of refreshing) expect((await call(urls[0]!, '/api/echo', c)).status).toBe(200);
    await redis.replicated();
    // Every session's token dropped upstream: each next relayed request must mint, one mint per session.
    for (const { token } of cluster.sim.tokens()) cluster.sim.revokeToken(token);
    const refreshMintsBefore = mintsFor(cluster, cluster.secret);

    const killedAt = Date.now();
    // Awaited: the primary has exited, and its sockets were closed, before any request below is sent.
    await redis.nodes.find((n) => n.port === doomed.master)!.kill();
    const logins = Array.from({ length: LOGINS }, (_, k) => tryLogin(urls[k % urls.length]!, loginSecret.value));
    const refreshes = refreshing.flatMap((c) =>
      Array.from({ length: PER_SESSION }, (_, k) => call(urls[k % urls.length]!, '/api/echo', c)),
    );
    await poll(
      async () => (await redis.roles()).some((r) => r.master === doomed.replica),
      30_000,
      `replica ${doomed.replica} promoted`,
    );
    const promotedAt = Date.now();
    const loginAnswers = await Promise.all(logins);
    const refreshAnswers = (await Promise.all(refreshes)).map((a) => a.status);
    // After the failover, logins succeed again.
    const later = await Promise.all(urls.map((u) => tryLogin(u, loginSecret.value)));
    const refreshMints = mintsFor(cluster, cluster.secret) - refreshMintsBefore;

    recordFigure(
      `cluster failover meeting writes: replica promoted ${(promotedAt - killedAt) / 1000} s after the kill; ` +
        `${LOGINS} logins ${JSON.stringify(loginAnswers.map((l) => `${l.status} +${l.endedAt - killedAt} ms`))}, ` +
        `after it ${JSON.stringify(later.map((l) => l.status))}; ${refreshAnswers.length} relayed requests of ` +
        `${refreshing.length} sessions needing a mint: ${refreshAnswers.filter((s) => s === 200).length} 200, ` +
        `${refreshAnswers.filter((s) => s === 503).length} 503; ${refreshMints} mints for them`,
    );

    // Logins: a 200 set a cookie whose session works on every instance; a 503 set none. Only the logins issued
    // during the failover may get one: those issued after it all succeed.
    for (const l of [...loginAnswers, ...later]) {
      if (l.status === 200) {
        expect(l.cookie).toBeDefined();
        for (const url of urls) expect((await call(url, '/api/echo', l.cookie!)).status).toBe(200);
      } else {
        expect([l.status, l.cookie]).toEqual([503, undefined]);
      }
    }
    expect(later.map((l) => l.status)).toEqual(urls.map(() => 200));
    // A failed login left no token alive upstream: one live token per successful login.
    const okLogins = [...loginAnswers, ...later].filter((l) => l.status === 200).length;
    expect(cluster.sim.tokens().filter((t) => t.secretAlias === loginSecret.alias)).toHaveLength(okLogins);

    // Refreshes: every answer a 200 or the documented 503; single flight held across the failover: one mint
    // per session, and afterwards each works on every instance without another.
    expect(refreshAnswers.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    // A count off names when each mint reached the data server and what the instances logged meanwhile.
    const minted =
      refreshMints === refreshing.length
        ? { mints: refreshMints }
        : {
            mints: refreshMints,
            at: mintRequests(cluster, cluster.secret)
              .slice(-refreshMints)
              .map((s) => `+${s.at - killedAt} ms`),
            logged: loggedTrouble(cluster, killedAt),
          };
    expect(minted).toEqual({ mints: refreshing.length });
    for (const c of refreshing) for (const url of urls) expect((await call(url, '/api/echo', c)).status).toBe(200);
    expect(mintsFor(cluster, cluster.secret) - refreshMintsBefore).toBe(refreshing.length);
    const heir = redis.client(doomed.replica!);
    for (const c of refreshing) {
      const keys = cluster.keys(sidOf(c));
      expect(await heir.exists(keys.token)).toBe(1);
    }
  });
});

describe('logins meeting a Redis Cluster primary failover that outlasts the wait', () => {
  // A wait far below a promotion: the logins of the failover run out of it.
  const WAIT_MS = 300;
  // How long the logins' mints take: the kill must come within it (a poll, a SIGKILL), by a margin that
  // survives a stalled machine.
  const MINT_MS = 2000;
  // A replica starts its election only once its primary has been silent this long: the mints, plus the
  // wait, end well before any promotion (nothing a starved test process can shorten).
  const NODE_TIMEOUT_MS = 2 * MINT_MS;
  const rig = clusterRig({
    label: 'cluster-writes-short',
    instances: 1,
    nodeTimeoutMs: NODE_TIMEOUT_MS,
    env: { STORE_FAILOVER_WAIT_MS: String(WAIT_MS) },
  });

  test('when the primary holding the session-end index dies while logins are minting, then each answers 503 with no cookie and its token deleted upstream, and logins after the promotion succeed', async () => {
    const { cluster, redis } = rig;
    const url = cluster.instances[0]!.url;
    const loginSecret = cluster.sim.createSecret({ alias: 'cluster_short_wait_logins' });
    // Set-up, not the property: a first login, retried should a starved moment time a command out.
    // Every try counts below (a failed one must leave no token either).
    const firsts: Array<Awaited<ReturnType<typeof tryLogin>>> = [];
    await until('a first login before the kill', async () => {
      const login = await tryLogin(url, loginSecret.value);
      firsts.push(login);
      return login.status === 200;
    });
    // A login's first write after its mint is its session-end entry (one sorted set, one slot): with that
    // slot's primary gone, a login that has minted cannot complete and must undo its mint.
    const doomed = await redis.ownerOf(redisKeys(cluster.prefix).sessionEnds());
    await redis.replicated();
    const mintsBefore = mintsFor(cluster, loginSecret.value);

    // The logins pass their checks (guess limits, budgets: Redis, all up) and wait at the data server's
    // mint; the primary dies while they wait there (MINT_MS), and their mints, plus the wait, end before
    // the replica is promoted (past NODE_TIMEOUT_MS).
    cluster.sim.setFaults({ tokenLatencyMs: MINT_MS });
    const during = Promise.all(Array.from({ length: LOGINS }, () => tryLogin(url, loginSecret.value)));
    await poll(
      async () => mintsFor(cluster, loginSecret.value) - mintsBefore === LOGINS,
      10_000,
      'every login to be minting',
    );
    const killedAt = Date.now();
    await redis.nodes.find((n) => n.port === doomed)!.kill();
    const answers = await during;
    cluster.sim.setFaults({});
    // Then one login at a time until one succeeds (the promotion, and the service finding the new primary).
    const polled: Array<Awaited<ReturnType<typeof tryLogin>>> = [];
    await poll(
      async () => {
        polled.push(await tryLogin(url, loginSecret.value));
        return polled.at(-1)!.status === 200;
      },
      30_000,
      'a login to succeed after the promotion',
    );
    const later = await Promise.all([tryLogin(url, loginSecret.value), tryLogin(url, loginSecret.value)]);

    recordFigure(
      `cluster failover outlasting a ${WAIT_MS} ms wait, logins minting at the kill: ` +
        `${JSON.stringify(answers.map((l) => `${l.status} +${l.endedAt - killedAt} ms`))}; ${polled.length} more ` +
        `one at a time until one succeeded ${polled.at(-1)!.endedAt - killedAt} ms after the kill`,
    );
    // Set-up: the kill came while every login was still minting (none had answered).
    expect(answers.filter((l) => l.endedAt < killedAt)).toEqual([]);
    expect(answers.map((l) => [l.status, l.cookie])).toEqual(answers.map(() => [503, undefined]));
    const all = [...firsts, ...answers, ...polled, ...later];
    for (const l of all) {
      if (l.status === 200) expect(l.cookie).toBeDefined();
      else expect([l.status, l.cookie]).toEqual([503, undefined]);
    }
    expect(later.map((l) => l.status)).toEqual([200, 200]);
    // Nothing half-written: a token is alive upstream for each login that succeeded, and for no other.
    const alive = cluster.sim.tokens().filter((t) => t.secretAlias === loginSecret.alias).length;
    expect(alive).toBe(all.filter((l) => l.status === 200).length);
  });
});
