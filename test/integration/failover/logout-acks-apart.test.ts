/**
 * Freezes the replica of a private Sentinel group under running service processes
 */
import { CSRF, call, login, type Answer } from '../multi-instance/cluster.js';
import { until } from '../../helpers/wait.js';
import { sentinelRig } from './sentinel-rig.js';
import { recordFigure } from '../../helpers/figures.js';
import { blockedInWait } from './blocked-wait.js';

/**
 * Redis blocks a connection while a WAIT runs. A logout's replica acknowledgement (logout-replicated.test.ts)
 * goes on a connection of its own, so while a replica is frozen a logout waits, and nothing else of the
 * instance waits with it: not a login, not another session's relayed request, not under a run of logouts.
 * The wait is long (2.5 s) and the session cache is off, so every relayed request reads the store, and a
 * command queued behind a WAIT shows as a difference of seconds, not milliseconds.
 */
const WAIT_MS = 2500;
const LOGOUTS = 6;
/**
 * A relayed request's answer while logouts wait: half a WAIT, so one held behind a WAIT (answered about when
 * it ends) is told apart from one that was not, with a second or more to spare for a loaded machine.
 */
const RELAY_BOUND_MS = WAIT_MS / 2;

describe('a replica acknowledgement holds only the logout that waits for it (Sentinel)', () => {
  const rig = sentinelRig({
    label: 'logout-acks-apart',
    instances: 2,
    // Nothing here fails over: the sentinels must not call the frozen replica's master into question.
    group: { downAfterMs: 10_000 },
    env: {
      REDIS_COMMAND_TIMEOUT_MS: String(WAIT_MS + 1000),
      REDIS_LOGOUT_REPLICA_WAIT_MS: String(WAIT_MS),
      SESSION_CACHE: 'false',
    },
  });
  const url = (k: number) => rig.cluster.instances[k]!.url;

  /** A request and when it was answered. */
  const timed = async <T>(request: Promise<T>) => {
    const from = Date.now();
    const answer = await request;
    return { answer, at: Date.now(), ms: Date.now() - from };
  };
  const logout = async (cookie: string) => {
    const res = await fetch(`${url(0)}/auth/logout`, { method: 'POST', headers: { ...CSRF, Cookie: cookie } });
    await res.arrayBuffer();
    return {
      status: res.status,
      clears: /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(res.headers.get('set-cookie') ?? ''),
    };
  };
  /** Resolves once the master holds at least one connection blocked in a WAIT. */
  const waitInFlight = async () => {
    const master = rig.group.client(await rig.group.masterPort());
    await until('a WAIT blocked on the master', async () => blockedInWait(await master.client('LIST')) !== undefined);
  };
  const frozen = async <T>(during: () => Promise<T>): Promise<T> => {
    rig.group.replica.pause();
    try {
      return await during();
    } finally {
      rig.group.replica.resume();
    }
  };
  const endedEverywhere = async (cookie: string) =>
    (await Promise.all(rig.cluster.instances.map((i) => call(i.url, '/api/echo', cookie)))).map((a) => a.status);

  test("when a logout waits on a frozen replica, then a login and another session's relayed request on the same instance answer first", async () => {
    const leaving = await login(url(1), rig.cluster.secret);
    const staying = await login(url(1), rig.cluster.secret);
    expect((await call(url(0), '/api/echo', staying)).status).toBe(200);
    const { out, signIn, relay } = await frozen(async () => {
      const out = timed(logout(leaving));
      await waitInFlight();
      const signIn = timed(login(url(0), rig.cluster.secret));
      const relay = timed(call(url(0), '/api/echo', staying));
      return { out: await out, signIn: await signIn, relay: await relay };
    });
    recordFigure(
      `logout on a frozen replica (WAIT ${WAIT_MS} ms): ${out.answer.status} in ${out.ms} ms; meanwhile a login ` +
        `${signIn.ms} ms, another session's relayed GET ${relay.answer.status} in ${relay.ms} ms`,
    );
    expect(out.answer).toEqual({ status: 503, clears: true });
    expect(relay.answer.status).toBe(200);
    expect(signIn.at).toBeLessThan(out.at);
    expect(relay.at).toBeLessThan(out.at);
    // Not confirmed, but the tombstone was written: the session is ended everywhere.
    expect(await endedEverywhere(leaving)).toEqual([401, 401]);
  });

  test("when the acknowledgement's connection is lost mid-WAIT, then it is tried again on a new one and the logout answers 204", async () => {
    const leaving = await login(url(1), rig.cluster.secret);
    const out = await frozen(async () => {
      const pending = timed(logout(leaving));
      await waitInFlight();
      // The connection blocked in the WAIT is cut (as a failover cuts it), then the replica is back.
      const master = rig.group.client(await rig.group.masterPort());
      const blocked = blockedInWait(await master.client('LIST'));
      const id = /\bid=(\d+)/.exec(blocked ?? '')?.[1];
      expect(id).toBeDefined();
      await master.client('KILL', 'ID', id!);
      rig.group.replica.resume();
      return pending;
    });
    recordFigure(`logout whose WAIT connection was cut: ${out.answer.status} in ${out.ms} ms`);
    expect(out.answer).toEqual({ status: 204, clears: true });
    expect(await endedEverywhere(leaving)).toEqual([401, 401]);
  });

  test(`when ${LOGOUTS} logouts wait on a frozen replica at once, then another session's relayed requests are not held`, async () => {
    const leaving = await Promise.all(Array.from({ length: LOGOUTS }, () => login(url(1), rig.cluster.secret)));
    const staying = await login(url(1), rig.cluster.secret);
    expect((await call(url(0), '/api/echo', staying)).status).toBe(200);
    const { outs, relays } = await frozen(async () => {
      let answered = false;
      const outs = Promise.all(leaving.map((c) => timed(logout(c)))).finally(() => (answered = true));
      await waitInFlight();
      // Relayed requests one after another for as long as the logouts wait (and one more after).
      const relays: Array<{ answer: Answer; at: number; ms: number }> = [];
      while (!answered) relays.push(await timed(call(url(0), '/api/echo', staying)));
      return { outs: await outs, relays };
    });
    const slowest = Math.max(...relays.map((r) => r.ms));
    recordFigure(
      `${LOGOUTS} logouts on a frozen replica (WAIT ${WAIT_MS} ms): ${JSON.stringify(outs.map((o) => o.answer.status))} ` +
        `in ${outs.map((o) => o.ms).join('/')} ms; meanwhile ${relays.length} relayed GETs of another session, ` +
        `statuses ${JSON.stringify([...new Set(relays.map((r) => r.answer.status))])}, slowest ${slowest} ms`,
    );
    // Set-up: relayed requests really were answered while the logouts waited.
    expect(relays.filter((r) => r.at < Math.min(...outs.map((o) => o.at))).length).toBeGreaterThan(0);
    expect(relays.map((r) => r.answer.status).filter((s) => s !== 200)).toEqual([]);
    expect(slowest).toBeLessThan(RELAY_BOUND_MS);
    // Every logout answered: none confirmed (503, cookie cleared), every session ended all the same.
    expect(outs.map((o) => o.answer)).toEqual(leaving.map(() => ({ status: 503, clears: true })));
    for (const c of leaving) expect(await endedEverywhere(c)).toEqual([401, 401]);
  });

  test('when a replica stays frozen after a logout it did not acknowledge, then one logout at a time waits for it, the others answer at once, and once it is back a logout answers 204', async () => {
    const first = await login(url(1), rig.cluster.secret);
    const next = await Promise.all(Array.from({ length: 3 }, () => login(url(1), rig.cluster.secret)));
    const after = await login(url(1), rig.cluster.secret);
    const { missed, outs } = await frozen(async () => {
      const missed = await timed(logout(first));
      return { missed, outs: await Promise.all(next.map((c) => timed(logout(c)))) };
    });
    const back = await timed(logout(after));
    const ms = outs.map((o) => o.ms).sort((a, b) => a - b);
    recordFigure(
      `a replica frozen after a missed acknowledgement (${missed.answer.status} in ${missed.ms} ms): 3 logouts ` +
        `${JSON.stringify(outs.map((o) => o.answer.status))} in ${ms.join('/')} ms; thawed: ${back.answer.status} in ${back.ms} ms`,
    );
    expect(missed.answer).toEqual({ status: 503, clears: true });
    expect(outs.map((o) => o.answer)).toEqual(next.map(() => ({ status: 503, clears: true })));
    // One probe waits the whole WAIT; the two others are not queued behind it in Redis.
    expect(ms[1]!).toBeLessThan(WAIT_MS / 2);
    expect(ms[2]!).toBeGreaterThanOrEqual(WAIT_MS - 100);
    expect(back.answer).toEqual({ status: 204, clears: true });
    for (const c of [first, ...next, after]) expect(await endedEverywhere(c)).toEqual([401, 401]);
  });
});
