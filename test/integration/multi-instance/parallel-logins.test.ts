/**
 * Bursts of 40 logins over three processes on two cores: beside other files the command timeout
 * below would measure their load, not the reply-before-timeout rule
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { metric } from './cache-metrics.js';
import { CSRF, OPEN_LOGIN_LIMITS, startCluster, type Cluster } from './cluster.js';
import { recordFigure } from '../../helpers/figures.js';

const LOGINS = 40;
const ROUNDS = 4;

async function tryLogin(url: string, secret: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${url}/auth/login`, {
    method: 'POST',
    headers: { ...CSRF, 'Content-Type': 'application/json' },
    body: JSON.stringify({ secret, graph: 'social' }),
  });
  return { status: res.status, body: await res.text() };
}

// 40 logins of one secret at once over three instances answered some 503 store_unavailable on a loaded
// machine. The cause, from the services' logs: "Command timed out" on commands Redis had answered. Each
// process's event loop is held up by the burst (its lag reached 120-560 ms here), and Node runs the
// command timeout's timer before it reads the reply waiting in the socket (store/redis/command-timeout.ts).
// A command timeout below those stalls makes the burst show it on a quiet machine: before the fix 503s in
// every run at 30 ms; after, none. 300 ms here: still below the stalls, and far above what Redis itself
// takes to answer even on a loaded machine (30 ms failed once with the fix, beside a helper's test run). Later rounds also run the per-credential session check (100 by
// default) with ids of earlier rounds on record.
describe('parallel logins over three instances', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({
      instances: 3,
      label: 'multi-parallel-login',
      env: {
        // The login limits are not what is tried here (parallel logins from one address count against
        // LOGIN_RATE_LIMIT while their check is in flight: 10 of 40 passed with the defaults).
        ...OPEN_LOGIN_LIMITS,
        REDIS_COMMAND_TIMEOUT_MS: '300',
      },
    });
  });
  afterAll(() => cluster?.close());

  test('when rounds of 40 logins of one secret run at once over three instances, then every one succeeds', async () => {
    const answers: Array<{ status: number; body: string }> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const batch = Array.from({ length: LOGINS }, (_, i) => tryLogin(cluster.instances[i % 3]!.url, cluster.secret));
      answers.push(...(await Promise.all(batch)));
    }
    const lag = await Promise.all(cluster.instances.map((i) => metric(i, 'nodejs_eventloop_lag_max_seconds')));
    recordFigure(`parallel logins: event loop lag at most ${lag.map((s) => (s * 1000).toFixed(0)).join(', ')} ms`);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused).toEqual([]);
  });
});
