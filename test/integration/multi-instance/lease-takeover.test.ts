import { sidOf } from '../../helpers/cookies.js';
import { until } from '../../helpers/wait.js';
import { call, login, startCluster, type Cluster } from './cluster.js';

// Renewed every third of it while the holder's call runs: 2 s leaves a renewal that waits for the CPU
// for a second still in time, so the lease is surely alive when the holder dies.
const LEASE_TTL_MS = 2000;

describe('refresh lease across service processes', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({
      instances: 2,
      label: 'multi-lease',
      env: { TOKEN_LEASE_TTL_MS: String(LEASE_TTL_MS) },
    });
  });
  afterAll(() => cluster?.close());

  test('when the lease holder is killed mid-refresh, then another instance takes over only after the lease lapses and answers 200', async () => {
    const a = cluster.instances[0]!;
    const b = cluster.instances[1]!;
    const cookie = await login(a.url, cluster.secret);
    const keys = cluster.keys(sidOf(cookie));
    await cluster.redis.del(keys.token);
    cluster.sim.resetCounts();
    const from = cluster.sim.seen().length;
    // The holder's upstream call hangs (longer than the test runs), so it is still holding (and renewing)
    // the lease when it dies.
    cluster.sim.setFaults({ tokenLatencyMs: 120_000 });

    const onA = call(a.url, '/api/echo', cookie).then(
      (answer) => `answered ${answer.status}`,
      () => 'connection lost',
    );
    await until('A to call POST /requesttoken', () => (cluster.sim.counts()['POST /requesttoken'] ?? 0) >= 1);
    const sentByA = cluster.sim
      .seen()
      .slice(from)
      .find((r) => r.path === '/requesttoken')!;
    expect(await cluster.redis.exists(keys.lease)).toBe(1);

    await a.kill();
    const killedAt = Date.now();
    const leaseLeftMs = await cluster.redis.pttl(keys.lease);
    cluster.sim.setFaults({});
    expect(await onA).toBe('connection lost');

    const res = await call(b.url, '/api/echo', cookie);

    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Hello GSQL');
    const tokenCalls = cluster.sim
      .seen()
      .slice(from)
      .filter((r) => r.path === '/requesttoken');
    expect(tokenCalls.map((r) => r.method)).toEqual(['POST', 'POST']);
    const takenOver = tokenCalls[1]!;
    // The dead holder had renewed its lease, so B had to wait it out; had it ignored the lease it
    // would have called at once.
    expect(leaseLeftMs).toBeGreaterThan(0);
    expect(takenOver.at).toBeGreaterThanOrEqual(killedAt + leaseLeftMs - 20);
    expect(takenOver.at - sentByA.at).toBeGreaterThanOrEqual(LEASE_TTL_MS * 0.5);
    expect(await cluster.redis.exists(keys.lease)).toBe(0);
    expect(await cluster.redis.exists(keys.token)).toBe(1);
  });
});
