import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { OPEN_LOGIN_LIMITS, startCluster, type Cluster } from './cluster.js';
import { recordFigure } from '../../helpers/figures.js';

const CAP = 3;
const BURST = 8;
const ROUNDS = 20;

async function tryLogin(url: string, secret: string): Promise<number> {
  const res = await fetch(`${url}/auth/login`, {
    method: 'POST',
    headers: { 'X-Requested-With': 'XMLHttpRequest', 'Content-Type': 'application/json' },
    body: JSON.stringify({ secret, graph: 'social' }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Session records under the prefix that no tombstone ends: the sessions a cookie could still use. */
async function liveSessions(cluster: Cluster): Promise<number> {
  const records = await cluster.redis.keys(`${cluster.prefix}sess:*`);
  const sids = records.map((key) => /\{(.*)\}$/.exec(key)![1]!);
  const dead = await Promise.all(sids.map((sid) => cluster.redis.exists(cluster.keys(sid).tombstone)));
  return dead.filter((d) => d === 0).length;
}

// Issue 42, item 3: concurrent logins of one credential over two instances once left 4 live sessions with a
// cap of 3. A login is on its credential's list before its record is saved; another login's check found
// that id without a record, took it for a session that had ended and pruned it, and the first login then
// saved a session nobody counted. Against the cap logic before the fix (TGBFF_MAIN=<that build>), this
// fails within a few rounds: live sessions reached 4 to 6.
describe('the per-credential session cap under concurrent logins', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({
      instances: 2,
      label: 'session-cap-race',
      env: { ...OPEN_LOGIN_LIMITS, SESSIONS_PER_CREDENTIAL: String(CAP) },
    });
  });
  afterAll(() => cluster?.close());

  test(`when ${ROUNDS} bursts of ${BURST} logins of one secret run at once over two instances, then no burst leaves more than the cap live`, async () => {
    const seen: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const statuses = await Promise.all(
        Array.from({ length: BURST }, (_, i) => tryLogin(cluster.instances[i % 2]!.url, cluster.secret)),
      );
      expect(statuses.every((s) => s === 200)).toBe(true);
      seen.push(await liveSessions(cluster));
    }
    recordFigure(`session cap race: live sessions after each burst ${seen.join(' ')} (cap ${CAP})`);
    expect(Math.max(...seen)).toBeLessThanOrEqual(CAP);
    // The cap is reached, not undershot by more than a burst's own losers: something stays live.
    expect(Math.min(...seen)).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
