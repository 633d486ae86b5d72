import { startRig, type Rig } from '../../helpers/app-rig.js';
import { sidOf } from '../../helpers/cookies.js';
import { startFaultProxy, type FaultProxy } from '../../helpers/fault-proxy.js';
import { poll, WAIT_MS } from '../../helpers/wait.js';
import { watchCommands } from '../../helpers/redis-monitor.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { call, login } from '../multi-instance/cluster.js';
import { scrape } from '../observability/prom-text.js';

const WAITERS = 5;
const CSRF = { 'X-Requested-With': 'XMLHttpRequest' };

/**
 * The service reaches its own Redis through a proxy that can reset every connection (the connection lost, as
 * in a failover), while Redis itself stays up: MONITOR on it sees every command that ever arrives.
 */
describe('a request waiting for a lost Redis connection whose client leaves', () => {
  let redis: RedisServer;
  let proxy: FaultProxy;
  let rig: Rig;
  let base: string;
  beforeAll(async () => {
    redis = await startRedisServer();
    proxy = await startFaultProxy({ port: redis.port });
    rig = await startRig({
      store: proxy.url('redis'),
      env: {
        // Far past the test: only the client leaving, never the bound, frees a slot here.
        STORE_FAILOVER_WAIT_MS: '60000',
        // Nothing here waits on a silent Redis (the connection is lost, not frozen): a long command timeout
        // keeps a starved machine's slow answers from failing the set-up.
        REDIS_COMMAND_TIMEOUT_MS: '5000',
        STORE_FAILOVER_WAITERS: String(WAITERS),
        RELAY_SESSION_CONCURRENCY: '100',
      },
    });
    base = await rig.listen();
  });
  afterAll(async () => {
    await rig?.close();
    await proxy?.close();
    await redis?.stop();
  });

  const waiting = async () => (await scrape(rig.service.metricsApp)).value('tgbff_store_waiting_commands');

  /** `n` relayed GETs whose client can leave; each settles to 'left' when aborted, or its status. */
  function requests(cookie: string, n: number) {
    return Array.from({ length: n }, () => {
      const abort = new AbortController();
      const answer = fetch(`${base}/api/echo`, { headers: { ...CSRF, Cookie: cookie }, signal: abort.signal }).then(
        async (res) => {
          await res.arrayBuffer();
          return res.status;
        },
        () => 'left' as const,
      );
      return { abort: () => abort.abort(), answer };
    });
  }

  test('when every waiting client leaves, then the slots are free at once, new requests wait again, and the abandoned commands are never sent', async () => {
    const leaving = await login(base, rig.secret);
    const staying = await login(base, rig.secret);
    expect((await call(base, '/api/echo', leaving)).status).toBe(200);
    expect((await call(base, '/api/echo', staying)).status).toBe(200);
    expect(await waiting()).toBe(0);
    const watch = await watchCommands(redis.url, rig.prefix);

    proxy.set({ kind: 'reset' });
    // A command issued before the client saw its socket go is on the wire and fails: only later ones wait.
    await poll(async () => rig.service.stores.redis?.status !== 'ready', WAIT_MS, 'the connection to be lost');
    const first = requests(leaving, WAITERS);
    await poll(async () => (await waiting()) === WAITERS, WAIT_MS, `${WAITERS} store commands waiting`);
    // The cap is full: one more answers 503 at once (set-up holds: these really are the waiting slots).
    expect((await call(base, '/api/echo', staying)).status).toBe(503);

    for (const r of first) r.abort();
    expect(await Promise.all(first.map((r) => r.answer))).toEqual(first.map(() => 'left'));
    await poll(async () => (await waiting()) === 0, 5000, 'the slots freed by the clients leaving');

    // Freed slots take new waiters, which go out once the connection is back.
    await watch.reset();
    const second = requests(staying, WAITERS);
    await poll(async () => (await waiting()) === WAITERS, WAIT_MS, `${WAITERS} new store commands waiting`);
    proxy.set({ kind: 'pass' });
    expect(await Promise.all(second.map((r) => r.answer))).toEqual(second.map(() => 200));
    expect(await waiting()).toBe(0);

    const seen = (await watch.commands()).map((c) => c.join(' '));
    watch.stop();
    // The staying session's commands are seen (the watch works); the leaving one's never arrive.
    expect(seen.filter((c) => c.includes(sidOf(staying))).length).toBeGreaterThan(0);
    expect(seen.filter((c) => c.includes(sidOf(leaving)))).toEqual([]);
  });
});
