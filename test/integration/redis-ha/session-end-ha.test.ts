/**
 * Sweep intervals must elapse on time on Sentinel and Cluster
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { startRedisCluster, type RedisClusterRig } from '../../helpers/redis-cluster.js';
import { sentinelAppRig } from '../failover/sentinel-rig.js';
import { recordFigure } from '../../helpers/figures.js';
import { until } from '../../helpers/wait.js';

const SWEEP_MS = 200;
// 2 s idle, not 1: each login's first request must come within it (a slow machine's CI missed 1 s elsewhere).
const IDLE_S = 2;
const ENV = {
  SESSION_IDLE_TIMEOUT: String(IDLE_S),
  SESSION_ABSOLUTE_TIMEOUT: '60',
  TOKEN_REFRESH_BEFORE: '10',
  TOKEN_SWEEP_INTERVAL_MS: String(SWEEP_MS),
};

/**
 * Six sessions go idle; every token must be deleted upstream exactly once, soon after the idle deadline
 * (the tokens would otherwise live 60 s). Returns the delay after the last idle deadline.
 */
async function idleSessionsLoseTheirTokens(rig: Rig): Promise<number> {
  const before = new Set(rig.sim.tokens().map((t) => t.token));
  for (let i = 0; i < 6; i++) {
    const agent = await rig.login();
    expect((await agent.get('/api/echo')).status).toBe(200);
  }
  const ours = rig.sim
    .tokens()
    .map((t) => t.token)
    .filter((t) => !before.has(t));
  expect(ours).toHaveLength(6);
  const idleEnd = Date.now() + IDLE_S * 1000;

  const live = () => new Set(rig.sim.tokens().map((t) => t.token));
  await until("every idle session's token to be deleted upstream", () => !ours.some((t) => live().has(t)));
  const lateMs = Date.now() - idleEnd;
  const deletes = rig.sim.seen().filter((r) => r.method === 'DELETE' && r.path === '/requesttoken');
  for (const token of ours) expect(deletes.filter((d) => d.bodyText?.includes(token))).toHaveLength(1);
  expect(lateMs).toBeLessThan(SWEEP_MS + 800);
  return lateMs;
}

describe('session-end index on Redis Cluster', () => {
  let cluster: RedisClusterRig;
  let rig: Rig;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    rig = await startRig({ store: { env: { REDIS_CLUSTER_NODES: cluster.nodeList } }, env: ENV });
  });
  afterAll(async () => {
    await rig?.close();
    await cluster?.stop();
  });

  test('when sessions whose keys sit on different masters go idle, then each token is deleted upstream once', async () => {
    const lateMs = await idleSessionsLoseTheirTokens(rig);
    recordFigure(
      `cluster: idle-expired tokens all deleted ${lateMs} ms after the last idle deadline (sweep ${SWEEP_MS} ms)`,
    );
  });
});

describe('session-end index on Redis Sentinel', () => {
  const sentinel = sentinelAppRig({ env: ENV }, 40_000);

  test('when sessions go idle behind Sentinel, then each token is deleted upstream once', async () => {
    const lateMs = await idleSessionsLoseTheirTokens(sentinel.rig);
    recordFigure(
      `sentinel: idle-expired tokens all deleted ${lateMs} ms after the last idle deadline (sweep ${SWEEP_MS} ms)`,
    );
  });
});
