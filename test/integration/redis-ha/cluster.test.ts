/**
 * Cluster formation and a master kill with six redis-server processes, within bounds
 */
import type { Server } from 'node:http';
import { Cluster } from 'ioredis';
import { CSRF, startRig, type Rig } from '../../helpers/app-rig.js';
import { startRedisCluster, type RedisClusterRig } from '../../helpers/redis-cluster.js';
import { createService, type Service } from '../../../src/service.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { testClock } from '../../helpers/clock.js';
import { loginWithSid } from './ha-load.js';
import { recordFigure } from '../../helpers/figures.js';

describe('Redis Cluster: three masters', () => {
  let cluster: RedisClusterRig;
  let rig: Rig;
  let admin: Cluster;
  // One clock for the simulator and every service instance, so a test can move time without waiting.
  const clock = testClock();
  const keyOf = (kind: string, sid: string) => `${rig.prefix}${kind}:{${sid}}`;
  const mints = () => rig.sim.counts()['POST /requesttoken'] ?? 0;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    rig = await startRig({
      store: { env: { REDIS_CLUSTER_NODES: cluster.nodeList } },
      now: clock.now,
      // One session's 100 concurrent requests are the point of the single-flight test below.
      env: {
        TG_TOKEN_LIFETIME: '1000',
        TOKEN_REFRESH_BEFORE: '100',
        LOGIN_RATE_LIMIT: '1000',
        RELAY_SESSION_CONCURRENCY: '100',
        // These masters have no replicas: a dead one never comes back, so requests wait out this bound.
        STORE_FAILOVER_WAIT_MS: '2000',
      },
    });
    admin = new Cluster([{ host: '127.0.0.1', port: cluster.nodes[0]!.port }]);
  });
  afterAll(async () => {
    admin?.disconnect();
    await rig?.close();
    await cluster?.stop();
  });

  test('when sessions log in, then each one keeps all its keys in one slot, and sessions spread over the masters', async () => {
    const sessions = await Promise.all(Array.from({ length: 12 }, () => loginWithSid(rig)));
    const owners = new Set<number>();
    for (const { agent, sid } of sessions) {
      expect((await agent.get('/api/echo')).status).toBe(200);
      const slots = await Promise.all(
        ['sess', 'tok', 'lease', 'dead'].map((kind) => admin.cluster('KEYSLOT', keyOf(kind, sid))),
      );
      expect(new Set(slots).size).toBe(1);
      const owner = await cluster.ownerOf(keyOf('sess', sid));
      // Asked directly, not through the cluster client: the keys really live on the slot's master.
      expect(await cluster.client(owner).exists(keyOf('sess', sid), keyOf('tok', sid))).toBe(2);
      owners.add(owner);
    }
    expect(owners.size).toBeGreaterThan(1);
  });

  test('when a token comes due, then it is refreshed by PUT through the cluster, and logout leaves only the tombstone', async () => {
    const { agent, sid } = await loginWithSid(rig);
    expect((await agent.get('/api/echo')).status).toBe(200);
    const puts = rig.sim.counts()['PUT /requesttoken'] ?? 0;
    const mintsBefore = mints();

    clock.advance(950_000); // 50 s of 1000 s left: inside TOKEN_REFRESH_BEFORE
    expect((await agent.get('/api/graph/social/vertices/Person')).status).toBe(200);
    expect(rig.sim.counts()['PUT /requesttoken']).toBe(puts + 1);
    expect(mints()).toBe(mintsBefore);
    const session = await agent.get('/auth/session');
    expect(Math.abs(Date.parse(session.body.tokenExpiresAt) - (clock.now() + 1_000_000))).toBeLessThan(5_000);

    expect((await agent.post('/auth/logout')).status).toBe(204);
    const after = await agent.get('/api/echo');
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('not_authenticated');
    const owner = cluster.client(await cluster.ownerOf(keyOf('dead', sid)));
    expect(await owner.exists(keyOf('sess', sid), keyOf('tok', sid))).toBe(0);
    expect(await owner.exists(keyOf('dead', sid))).toBe(1);
  });

  test('when 100 requests for a session without a token reach three instances at once, then exactly one token is minted', async () => {
    const upstream = { restppUrl: rig.sim.restppUrl, gsqlUrl: rig.sim.gsqlUrl, version: rig.sim.version };
    const others: Service[] = [];
    const servers: Server[] = [];
    try {
      // Three instances besides the rig's: the one that logged the session in may remember its token.
      for (let i = 0; i < 3; i += 1) {
        others.push(
          await createService({
            config: rig.config,
            upstream,
            logger: silentLogger(),
            now: clock.now,
            instanceId: `extra-${i}`,
          }),
        );
      }
      const urls: string[] = [];
      for (const service of others) {
        const server = service.app.listen(0, '127.0.0.1');
        servers.push(server);
        await new Promise<void>((resolve) => server.once('listening', () => resolve()));
        urls.push(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
      }
      const { sid, cookie } = await loginWithSid(rig);
      expect(await admin.del(keyOf('tok', sid))).toBe(1);
      const before = mints();

      const statuses = await Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          const res = await fetch(`${urls[i % urls.length]}/api/echo`, { headers: { ...CSRF, cookie } });
          await res.arrayBuffer();
          return res.status;
        }),
      );
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      expect(mints()).toBe(before + 1);
      expect(await admin.hget(keyOf('tok', sid), 'v')).not.toBeNull();
    } finally {
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
      await Promise.all(others.map((s) => s.close()));
    }
  });

  test('when a master with no replica dies, then requests answer 503 store_unavailable at the failover bound, never a hang or a 500', async () => {
    const sessions = await Promise.all(Array.from({ length: 6 }, () => loginWithSid(rig)));
    const victimPort = await cluster.ownerOf(keyOf('sess', sessions[0]!.sid));
    await cluster.nodes.find((n) => n.port === victimPort)!.kill();
    const started = Date.now();
    const answers = await Promise.all(
      sessions.map(async ({ agent }) => {
        const t0 = Date.now();
        const res = await agent.get('/api/echo');
        return { status: res.status, code: res.body.error?.code as string | undefined, ms: Date.now() - t0 };
      }),
    );
    const failed = answers.filter((a) => a.status !== 200);
    recordFigure(
      `cluster master killed: ${failed.length} of ${answers.length} sessions failed, all answered within ${Date.now() - started} ms`,
    );
    // Sessions on the other masters may still work until the cluster marks itself failed (node timeout).
    expect(answers[0]).toEqual(expect.objectContaining({ status: 503, code: 'store_unavailable' }));
    expect(failed.filter((a) => a.status !== 503 || a.code !== 'store_unavailable')).toEqual([]);
    // STORE_FAILOVER_WAIT_MS (2 s), plus at most one try in flight (800 ms), plus a busy machine.
    for (const a of answers) expect(a.ms).toBeLessThan(5_000);
  });
});
