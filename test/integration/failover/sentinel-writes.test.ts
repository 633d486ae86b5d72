/**
 * SIGKILLs a Sentinel group's master while logins, logouts and token refreshes are on their way
 */
import { sidOf } from '../../helpers/cookies.js';
import { call } from '../multi-instance/cluster.js';
import { sentinelRig } from './sentinel-rig.js';
import { lossLogs, loginSessions, tryLogin } from './failover-checks.js';
import { recordFigure } from '../../helpers/figures.js';

const REFRESHING = 10;
const LOGINS = 6;
const LOGOUTS = 3;
const PER_SESSION = 6;

describe('writes meeting a Sentinel failover: logins, logouts and token refreshes on three instances', () => {
  const rig = sentinelRig({ label: 'failover-writes' });

  test('when the master is SIGKILLed with writes on their way, then each completes once on the new master or fails with nothing half-written, one mint per session, and a logout holds everywhere, is refused whole or ends the session unconfirmed', async () => {
    const { group, cluster } = rig;
    const urls = cluster.instances.map((i) => i.url);
    // The logins of the failover use a secret of their own: their tokens upstream can be told apart.
    const loginSecret = cluster.sim.createSecret({ alias: 'failover_logins' });
    const loginAlias = loginSecret.alias;
    const refreshing = await loginSessions(cluster, REFRESHING);
    const leaving = await loginSessions(cluster, LOGOUTS);
    for (const c of [...refreshing, ...leaving]) expect((await call(urls[0]!, '/api/echo', c)).status).toBe(200);
    const doomedPort = await group.masterPort();
    const doomed = doomedPort === group.master.port ? group.master : group.replica;
    const heir = doomed === group.master ? group.replica : group.master;
    // What was written before the kill must have reached the replica (asynchronous replication).
    expect(await group.replicated(doomedPort)).toBe(1);
    // Every session's token dropped upstream: each next relayed request must mint, one mint per session.
    for (const { token } of cluster.sim.tokens()) cluster.sim.revokeToken(token);
    const mintsBefore = cluster.sim.counts()['POST /requesttoken'] ?? 0;

    const lossSeen = lossLogs(cluster);
    const killedAt = Date.now();
    await doomed.kill();
    // Every instance has seen the master go: the writes below meet the failover (held, or refused whole).
    await lossSeen();
    const logins = Array.from({ length: LOGINS }, (_, k) => tryLogin(urls[k % urls.length]!, loginSecret.value));
    const logouts = leaving.map((c, k) => call(urls[k % urls.length]!, '/auth/logout', c, 'POST'));
    const refreshes = refreshing.flatMap((c) =>
      Array.from({ length: PER_SESSION }, (_, k) => call(urls[k % urls.length]!, '/api/echo', c)),
    );
    await group.waitForMaster(heir.port, 30_000);
    const newMasterAt = Date.now();
    const loginAnswers = await Promise.all(logins);
    const logoutAnswers = await Promise.all(logouts);
    const refreshAnswers = (await Promise.all(refreshes)).map((a) => a.status);
    const duringMints = (cluster.sim.counts()['POST /requesttoken'] ?? 0) - mintsBefore;

    // Logins: a 200 set a cookie whose session works on every instance; anything else set none.
    for (const l of loginAnswers) {
      if (l.status === 200) {
        expect(l.cookie).toBeDefined();
        for (const url of urls) expect((await call(url, '/api/echo', l.cookie!)).status).toBe(200);
      } else {
        expect([l.status, l.cookie]).toEqual([503, undefined]);
      }
    }
    // Refreshes: every answer a 200 or the documented 503, never a 401 or 5xx of another kind.
    expect(refreshAnswers.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    // Afterwards every refreshing session works on every instance, and no session minted twice over it all.
    for (const c of refreshing) for (const url of urls) expect((await call(url, '/api/echo', c)).status).toBe(200);
    const mints = (cluster.sim.counts()['POST /requesttoken'] ?? 0) - mintsBefore;
    // Token state came through on the new master with its session record: nothing half-written.
    const heirClient = group.client(heir.port);
    for (const c of refreshing) {
      const keys = cluster.keys(sidOf(c));
      expect(await heirClient.exists(keys.session, keys.token)).toBe(2);
    }
    // Logouts: answered, and honoured on every instance afterwards: record, token state and every instance's
    // answer, all in one look so a failure shows the whole picture.
    const afterLogout = [];
    for (const [k, c] of leaving.entries()) {
      const keys = cluster.keys(sidOf(c));
      afterLogout.push({
        logout: logoutAnswers[k]!.status,
        record: await heirClient.exists(keys.session, keys.token),
        tombstone: await heirClient.exists(keys.tombstone),
        sessionSays: await Promise.all(
          urls.map(async (u) => (await call(u, '/auth/session', c)).body.authenticated === true),
        ),
        relay: await Promise.all(urls.map(async (u) => (await call(u, '/api/echo', c)).status)),
      });
    }
    // A 204 is honoured: no record, a tombstone, 401 on every instance. A 503 is one of two wholes, never
    // anything between: refused (nothing of it written, the session still live everywhere), or ended but not
    // confirmed (its tombstone written, no replica acknowledged it in time: 401 on every instance; the record
    // and token state stay until the session-end sweeper, as the tombstone alone ends the session). Either
    // way the browser's cookie is cleared.
    const ended = { tombstone: 1, sessionSays: urls.map(() => false), relay: urls.map(() => 401) };
    const honoured = { record: 0, ...ended };
    const refused = { record: 2, tombstone: 0, sessionSays: urls.map(() => true), relay: urls.map(() => 200) };
    expect(afterLogout).toEqual(
      afterLogout.map((a) => {
        if (a.logout !== 503) return { logout: 204, ...honoured };
        return a.tombstone === 1 ? { logout: 503, record: a.record, ...ended } : { logout: 503, ...refused };
      }),
    );
    const storeErrors = cluster.instances
      .flatMap((i) => i.output().split('\n'))
      .filter((l) => l.includes('Session store unavailable'))
      .map((l) => /"message":"([^"]{0,80})/.exec(l.slice(l.indexOf('"err"')))?.[1] ?? '?');

    recordFigure(
      `sentinel failover meeting writes: new master ${(newMasterAt - killedAt) / 1000} s after the kill; ` +
        `${LOGINS} logins ${JSON.stringify(loginAnswers.map((l) => l.status))}, ${LOGOUTS} logouts ${JSON.stringify(logoutAnswers.map((a) => a.status))} (tombstones after: ${afterLogout.map((a) => a.tombstone).join('')}), ` +
        `${refreshAnswers.length} relayed requests of ${REFRESHING} sessions needing a mint: ${refreshAnswers.filter((s) => s === 200).length} 200, ` +
        `${refreshAnswers.filter((s) => s === 503).length} 503; mints ${duringMints} during, ${mints} in all (${REFRESHING} sessions re-minting + the logins'); ` +
        `store errors behind the 503s: ${JSON.stringify(storeErrors)}`,
    );
    // Every login mints once, so the simulator's count is the refreshes' mints plus the logins'. Single flight:
    // one mint per refreshing session. A login that failed may have minted; it must not have left it alive.
    const okLogins = loginAnswers.filter((l) => l.status === 200).length;
    expect(mints).toBeGreaterThanOrEqual(REFRESHING + okLogins);
    expect(mints).toBeLessThanOrEqual(REFRESHING + LOGINS);
    expect(cluster.sim.tokens().filter((t) => t.secretAlias === loginAlias)).toHaveLength(okLogins);
  });
});
