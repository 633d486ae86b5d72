/**
 * Lease timing while a service process is frozen or killed mid-refresh
 */
import { createHash } from 'node:crypto';
import type { SeenRequest } from '../../../src/simulator/types.js';
import { sidOf } from '../../helpers/cookies.js';
import { call, login, startCluster, type Cluster } from '../multi-instance/cluster.js';
import { recordFigure } from '../../helpers/figures.js';
import { until } from '../../helpers/wait.js';
import { inFlight } from '../hostile/hostile-rig.js';

/**
 * Service processes failing next to each other on one Redis: a lease holder frozen past its lease and
 * thawed, and a replica killed under load. (A holder SIGKILLed mid-refresh: multi-instance/lease-takeover.)
 */
const LEASE_TTL_MS = 1000;
/**
 * How long the holder's token call takes: it must still be open when the test freezes or kills the holder,
 * a step that waits for the call to arrive and may itself wait for the CPU; three lease times leave room.
 */
const TOKEN_LATENCY_MS = 3 * LEASE_TTL_MS;

const bearerOf = (r: SeenRequest): string => String(r.headers.authorization ?? '').replace(/^Bearer /, '');

describe('instance faults (three service processes on one Redis)', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({
      instances: 3,
      label: 'faults-inst',
      env: { TOKEN_LEASE_TTL_MS: String(LEASE_TTL_MS), RELAY_SESSION_CONCURRENCY: '100' },
    });
  });
  afterAll(() => cluster?.close());

  test('when the lease holder is frozen (SIGSTOP) mid-mint past its lease and then thawed, then at most 2 token calls and its late token never replaces the newer one', async () => {
    const [a, b, c] = cluster.instances as [
      (typeof cluster.instances)[0],
      (typeof cluster.instances)[0],
      (typeof cluster.instances)[0],
    ];
    const alias = `frozen_${Date.now()}`;
    const cookie = await login(a.url, cluster.sim.createSecret({ alias }).value);
    const keys = cluster.keys(sidOf(cookie));
    // As if the login's token had lapsed: state gone (that token stays live upstream; not counted below).
    const before = new Set(cluster.sim.tokens().map((t) => t.token));
    await cluster.redis.del(keys.token);
    cluster.sim.resetCounts();
    const from = cluster.sim.seen().length;
    cluster.sim.setFaults({ tokenLatencyMs: TOKEN_LATENCY_MS });
    const onA = call(a.url, '/api/echo', cookie).then(
      (r) => `${r.status} ${r.body.error?.code ?? ''}`,
      () => 'connection lost',
    );
    await until('A to call POST /requesttoken', () => (cluster.sim.counts()['POST /requesttoken'] ?? 0) >= 1);
    a.proc.kill('SIGSTOP');
    try {
      cluster.sim.setFaults({});
      await until("the frozen holder's lease to lapse", async () => (await cluster.redis.exists(keys.lease)) === 0);
      const onB = await call(b.url, '/api/echo', cookie);
      expect(onB.status).toBe(200);
      // The frozen holder's call is answered by now (its late token sits in its socket buffer).
      await until(
        'the late token to be minted',
        () => cluster.sim.tokens().filter((t) => t.secretAlias === alias && !before.has(t.token)).length >= 2,
      );
    } finally {
      a.proc.kill('SIGCONT');
    }
    const answerA = await onA;
    // The thawed holder is itself again (its timers and connections caught up) before it is asked anything.
    await until('the thawed holder to be ready', async () => (await fetch(`${a.url}/readyz`)).status === 200);
    const after = await Promise.all([a, b, c, b, c].map((i) => call(i.url, '/api/echo', cookie)));

    const seen = cluster.sim.seen().slice(from);
    const mints = seen.filter((r) => r.path === '/requesttoken' && r.method === 'POST').length;
    const echoes = seen.filter((r) => r.path === '/echo');
    const newer = bearerOf(echoes[0]!); // B's, the first served
    const usedAfter = new Set(echoes.slice(-after.length).map(bearerOf));
    const live = cluster.sim
      .tokens()
      .filter((t) => t.secretAlias === alias && !before.has(t.token))
      .map((t) => t.token);
    const stored = await cluster.redis.hget(keys.token, 'f');
    recordFigure(
      `instance frozen past its lease: ${mints} token calls, thawed holder answered ${answerA}, ` +
        `${usedAfter.size} token(s) in use afterwards (${usedAfter.has(newer) ? 'the newer' : 'NOT the newer'}), ${live.length} live upstream`,
    );
    expect(mints).toBeLessThanOrEqual(2);
    expect(after.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect([...usedAfter]).toEqual([newer]);
    expect(stored).toBe(createHash('sha256').update(newer).digest('base64url'));
    // The late token was not kept, so it must not stay alive upstream either.
    expect(live).toEqual([newer]);
  });

  test('when the lease holder is SIGKILLed mid-refresh while the others wait, then exactly one more token call, and every instance uses the token in Redis', async () => {
    const [a, b, c] = cluster.instances as [
      (typeof cluster.instances)[0],
      (typeof cluster.instances)[0],
      (typeof cluster.instances)[0],
    ];
    const alias = `killed_${Date.now()}`;
    const cookie = await login(a.url, cluster.sim.createSecret({ alias }).value);
    const keys = cluster.keys(sidOf(cookie));
    await cluster.redis.del(keys.token);
    cluster.sim.resetCounts();
    const from = cluster.sim.seen().length;
    cluster.sim.setFaults({ tokenLatencyMs: TOKEN_LATENCY_MS });
    void call(a.url, '/api/echo', cookie).catch(() => undefined);
    await until('A to call POST /requesttoken', () => (cluster.sim.counts()['POST /requesttoken'] ?? 0) >= 1);
    // B and C already wait on A's lease when A dies: their requests are in, and the lease is still A's.
    const [inB, inC] = [await inFlight(b), await inFlight(c)];
    const waiting = [b, c, b, c].map((i) => call(i.url, '/api/echo', cookie));
    await until(
      'the four requests to be in B and C',
      async () => (await inFlight(b)) >= inB + 2 && (await inFlight(c)) >= inC + 2,
    );
    expect(await cluster.redis.exists(keys.lease)).toBe(1);
    await a.kill();
    const killedAt = Date.now();
    cluster.sim.setFaults({});
    const answers = await Promise.all(waiting);
    const tookOverMs = Date.now() - killedAt;
    cluster.instances.splice(cluster.instances.indexOf(a), 1);
    await cluster.add(); // back to three (add() lists it)

    const seen = cluster.sim.seen().slice(from);
    const mints = seen.filter((r) => r.path === '/requesttoken' && r.method === 'POST').length;
    const used = new Set(seen.filter((r) => r.path === '/echo').map(bearerOf));
    const stored = await cluster.redis.hget(keys.token, 'f');
    recordFigure(
      `instance holder killed mid-refresh: ${mints} token calls, ${answers.filter((r) => r.status === 200).length}/4 waiters ok ` +
        `${tookOverMs} ms after the kill, ${used.size} token in use`,
    );
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(mints).toBe(2);
    expect(used.size).toBe(1);
    expect(stored).toBe(
      createHash('sha256')
        .update([...used][0]!)
        .digest('base64url'),
    );
  });

  test('when a replica is SIGKILLed under load, then sessions continue on the others with no re-login and no new token', async () => {
    const cookies = await Promise.all(
      Array.from({ length: 9 }, (_, i) => login(cluster.instances[i % 3]!.url, cluster.secret)),
    );
    for (const cookie of cookies) expect((await call(cluster.instances[0]!.url, '/api/echo', cookie)).status).toBe(200);
    cluster.sim.resetCounts();
    const live = [...cluster.instances];
    const doomed = live[2]!;
    const results: Array<{ on: string; status: number }> = [];
    let running = true;
    let n = 0;
    const loop = async (): Promise<void> => {
      while (running) {
        const instance = live[n % live.length]!;
        const cookie = cookies[n++ % cookies.length]!;
        const status = await call(instance.url, '/api/echo', cookie).then(
          (r) => r.status,
          () => 0,
        );
        results.push({ on: instance === doomed ? 'doomed' : 'survivor', status });
      }
    };
    const loops = Array.from({ length: 6 }, loop);
    const served = (on: string): number => results.filter((r) => r.on === on && r.status === 200).length;
    try {
      // Under way: every instance, the doomed one too, has served the load.
      await until('the load to be served on every instance', () => served('doomed') >= 5 && served('survivor') >= 10);
      const dying = doomed.kill();
      // The balancer notices the refused connections and routes away.
      live.splice(live.indexOf(doomed), 1);
      await dying;
      // And carries on on the survivors for a while after the kill.
      const survivedBefore = served('survivor');
      await until('the survivors to serve 30 more requests', () => served('survivor') >= survivedBefore + 30);
    } finally {
      running = false;
      await Promise.all(loops);
    }
    cluster.instances.splice(cluster.instances.indexOf(doomed), 1);

    const survivors = results.filter((r) => r.on === 'survivor');
    const lostOnDoomed = results.filter((r) => r.on === 'doomed' && r.status !== 200).length;
    recordFigure(
      `instance replica killed under load: ${survivors.filter((r) => r.status === 200).length}/${survivors.length} ok on the survivors, ` +
        `${lostOnDoomed} lost in flight on the killed one, ${cluster.sim.counts()['POST /requesttoken'] ?? 0} new tokens`,
    );
    expect(survivors.filter((r) => r.status !== 200)).toEqual([]);
    // Only what was in flight on it (one per client loop).
    expect(lostOnDoomed).toBeLessThanOrEqual(6);
    for (const cookie of cookies) expect((await call(live[0]!.url, '/auth/session', cookie)).status).toBe(200);
    expect(cluster.sim.counts()['POST /requesttoken'] ?? 0).toBe(0);
  });
});
