/**
 * Sweep intervals of two processes must elapse on time
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { elapse, until } from '../../helpers/wait.js';
import { call, login, startCluster, type Cluster } from './cluster.js';

const SESSIONS = 10;
/** Both instances' sweep interval (TOKEN_SWEEP_INTERVAL_MS). */
const SWEEP_MS = 100;

describe('session-end sweep across instances', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({
      instances: 2,
      label: 'multi-session-end',
      env: {
        // 5 s: a login and its first request must fit inside it on a machine whose cores are taken (2 s once
        // did not, 401 on that request).
        SESSION_IDLE_TIMEOUT: '5',
        SESSION_ABSOLUTE_TIMEOUT: '60',
        TOKEN_REFRESH_BEFORE: '10',
        TOKEN_SWEEP_INTERVAL_MS: String(SWEEP_MS),
      },
    });
  });
  afterAll(() => cluster?.close());

  test('when sessions opened on two instances go idle, then every token is deleted upstream exactly once', async () => {
    // Each session's token is read right after its login: with a short idle timeout, the first sessions can be
    // swept before the last one logs in.
    const ours: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const url = cluster.instances[i % 2]!.url;
      const before = new Set(cluster.sim.tokens().map((t) => t.token));
      const cookie = await login(url, cluster.secret);
      expect((await call(url, '/api/echo', cookie)).status).toBe(200);
      ours.push(
        ...cluster.sim
          .tokens()
          .map((t) => t.token)
          .filter((t) => !before.has(t)),
      );
    }
    expect(new Set(ours).size).toBe(SESSIONS);

    await until('every idle session token to be deleted', () => {
      const live = new Set(cluster.sim.tokens().map((t) => t.token));
      return ours.every((t) => !live.has(t));
    });
    // Every entry settled (a pass removes one after its delete), so nothing is left to claim...
    await until(
      'the session-end queue to be empty',
      async () => (await cluster.redis.zcard(`${cluster.prefix}session-ends`)) === 0,
    );
    // ...and a second delete of the same token, were one to come, would land within a few more passes.
    await elapse(10 * SWEEP_MS, 'ten sweep intervals of both instances, in which no second delete may come');

    const deletes = cluster.sim.seen().filter((r) => r.method === 'DELETE' && r.path === '/requesttoken');
    for (const token of ours) expect(deletes.filter((d) => d.bodyText?.includes(token))).toHaveLength(1);
    expect(deletes).toHaveLength(SESSIONS);
    expect(await cluster.redis.zcard(`${cluster.prefix}session-ends`)).toBe(0);
  });
});
