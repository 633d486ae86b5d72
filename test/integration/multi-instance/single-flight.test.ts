import { sidOf } from '../../helpers/cookies.js';
import { elapse } from '../../helpers/wait.js';
import { call, login, startCluster, type Cluster } from './cluster.js';

/** 100 requests at once for one session, dealt round-robin over the instances (as a balancer would). */
async function burst(cluster: Cluster, cookie: string, n = 100) {
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      call(cluster.instances[i % cluster.instances.length]!.url, '/api/echo', cookie),
    ),
  );
}

/** The bearer tokens the simulator saw on /echo since `from` (an index into seen()). */
const echoTokens = (cluster: Cluster, from: number) =>
  cluster.sim
    .seen()
    .slice(from)
    .filter((r) => r.path === '/echo')
    .map((r) => String(r.headers.authorization).replace(/^Bearer /, ''));

// 40 s tokens refreshed 35 s before expiry: due 5 s after issue, so the refresh case waits only briefly; a
// refreshed token is due again 5 s later, time enough for a burst of 100 requests on a loaded machine.
const LIFETIME_S = 40;
const REFRESH_BEFORE_S = 35;

describe('three service processes on one Redis', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({
      instances: 3,
      label: 'multi-flight',
      env: {
        TG_TOKEN_LIFETIME: String(LIFETIME_S),
        TOKEN_REFRESH_BEFORE: String(REFRESH_BEFORE_S),
        RELAY_SESSION_CONCURRENCY: '100',
      },
    });
  });
  afterAll(() => cluster?.close());

  test('when 100 concurrent requests for a session without token state are spread across them, then exactly one POST /requesttoken reaches the simulator', async () => {
    const cookie = await login(cluster.instances[0]!.url, cluster.secret);
    const keys = cluster.keys(sidOf(cookie));
    expect(await cluster.redis.del(keys.token)).toBe(1);
    cluster.sim.resetCounts();
    const from = cluster.sim.seen().length;

    const answers = await burst(cluster, cookie);

    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(cluster.sim.counts()['POST /requesttoken']).toBe(1);
    const used = new Set(echoTokens(cluster, from));
    expect(used.size).toBe(1);
    expect(cluster.sim.tokens().map((t) => t.token)).toEqual(expect.arrayContaining([...used]));
    expect(await cluster.redis.exists(keys.token)).toBe(1);
  });

  test('when the token becomes due for refresh and 100 concurrent requests are spread across them, then exactly one PUT /requesttoken refreshes it', async () => {
    const cookie = await login(cluster.instances[1]!.url, cluster.secret);
    const session = await call(cluster.instances[2]!.url, '/auth/session', cookie);
    expect(session.status).toBe(200);
    const expiresAt = Date.parse(String(session.body.tokenExpiresAt));
    const dueAt = expiresAt - REFRESH_BEFORE_S * 1000;
    await elapse(Math.max(0, dueAt - Date.now()) + 500, 'the token must come due for its refresh');
    cluster.sim.resetCounts();
    const from = cluster.sim.seen().length;

    const answers = await burst(cluster, cookie);

    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(cluster.sim.counts()['PUT /requesttoken']).toBe(1);
    expect(cluster.sim.counts()['POST /requesttoken'] ?? 0).toBe(0);
    // A refresh keeps the token string and moves its expiry to now + lifetime.
    const used = [...new Set(echoTokens(cluster, from))];
    expect(used).toHaveLength(1);
    const upstream = cluster.sim.tokens().find((t) => t.token === used[0]);
    expect(upstream!.expiresAt * 1000).toBeGreaterThan(expiresAt);
  });
});
