import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { call, CSRF, login, OPEN_LOGIN_LIMITS, startCluster, type Cluster } from '../multi-instance/cluster.js';
import { until } from '../../helpers/wait.js';
import { ALICE, basic, SIM_USERS } from '../admin/admin-harness.js';

// The bound on an end reaching another instance's warm cache while its invalidation path is stalled: the
// heartbeat (1 s) plus REDIS_COMMAND_TIMEOUT_MS (docs/architecture.md, "The session cache"). Normally it takes
// milliseconds; twice the bound leaves a loaded machine room to poll.
const COMMAND_TIMEOUT_MS = 800;
const INVALIDATION_BOUND_MS = 2 * (1000 + COMMAND_TIMEOUT_MS);

interface Listed {
  id: string;
  current: boolean;
}

/** Issue 40, item 7: a person's sessions on three instances, listed and ended from another instance. */
describe('a person’s sessions over three instances', () => {
  let cluster: Cluster;
  const url = (i: number) => cluster.instances[i]!.url;
  beforeAll(async () => {
    cluster = await startCluster({
      instances: 3,
      label: 'sessions-instances',
      sim: SIM_USERS,
      env: {
        ...OPEN_LOGIN_LIMITS,
        PASSWORD_LOGIN: 'true',
        ADMIN_ROUTES: 'true',
        REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
      },
    });
  });
  afterAll(() => cluster?.close());

  /** Every instance refuses the cookie with session_ended (each warm first, so its cache is what is tried). */
  const refusedEverywhere = (cookie: string) =>
    until(
      'the ended session refused on all three instances',
      async () => {
        const answers = await Promise.all([0, 1, 2].map((i) => call(url(i), '/api/echo', cookie)));
        return answers.every((a) => a.status === 401 && a.body.error?.code === 'session_ended') || null;
      },
      { timeoutMs: INVALIDATION_BOUND_MS, intervalMs: 20 },
    );

  test('when a person has a session on each instance, then any instance lists all three, ends one by its handle (refused everywhere), refuses a replay and another person’s try, and logout everywhere ends the rest', async () => {
    const cookies = [
      await login(url(0), cluster.secret),
      await login(url(1), cluster.secret),
      await login(url(2), cluster.secret),
    ];
    const other = await login(url(0), cluster.sim.createSecret({ alias: 'instances_other' }).value);
    // Warm on every instance: each has the sessions in its cache.
    for (const cookie of cookies)
      for (const i of [0, 1, 2]) expect((await call(url(i), '/api/echo', cookie)).status).toBe(200);

    const fromB = (await call(url(1), '/auth/sessions', cookies[1]!)).body.sessions as Listed[];
    expect(fromB).toHaveLength(3);
    const handles = (await Promise.all([0, 2].map((i) => call(url(i), '/auth/sessions', cookies[i]!)))).map(
      (a) => (a.body.sessions as Listed[]).find((s) => s.current)!.id,
    );
    // Another person cannot end it: 404 as for a made-up handle.
    const foreign = await call(url(2), `/auth/sessions/${handles[0]!}`, other, 'DELETE');
    expect(foreign).toEqual(await call(url(2), '/auth/sessions/AAAAAAAAAAAAAAAA', other, 'DELETE'));
    expect(foreign.status).toBe(404);

    // B ends A's session (made on instance 0): refused on all three within the invalidation bound.
    expect((await call(url(1), `/auth/sessions/${handles[0]!}`, cookies[1]!, 'DELETE')).status).toBe(204);
    await refusedEverywhere(cookies[0]!);
    expect((await call(url(2), `/auth/sessions/${handles[0]!}`, cookies[2]!, 'DELETE')).status).toBe(404);
    expect((await call(url(0), '/auth/sessions', cookies[2]!)).body.sessions).toHaveLength(2);

    // C logs out everywhere: B's session too, on every instance; the other person is untouched.
    const out = await fetch(`${url(2)}/auth/logout`, {
      method: 'POST',
      headers: { ...CSRF, 'Content-Type': 'application/json', Cookie: cookies[2]! },
      body: JSON.stringify({ everywhere: true }),
    });
    expect(out.status).toBe(204);
    await refusedEverywhere(cookies[1]!);
    for (const i of [0, 1, 2]) expect((await call(url(i), '/api/echo', cookies[2]!)).status).toBe(401);
    expect((await call(url(1), '/api/echo', other)).status).toBe(200);
  });

  test('when the operator ends a TigerGraph user’s sessions from one instance, then they are refused on all three', async () => {
    const cookies: string[] = [];
    for (const i of [0, 1, 2]) {
      const res = await fetch(`${url(i)}/auth/login`, {
        method: 'POST',
        headers: { ...CSRF, 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: ALICE.name, password: ALICE.password, graph: 'social' }),
      });
      expect(res.status).toBe(200);
      cookies.push(res.headers.get('set-cookie')!.split(';')[0]!);
    }
    for (const cookie of cookies)
      for (const i of [0, 1, 2]) expect((await call(url(i), '/api/echo', cookie)).status).toBe(200);
    const res = await fetch(`${url(1)}/admin/sessions/end`, {
      method: 'POST',
      headers: { ...CSRF, 'Content-Type': 'application/json', Authorization: basic('tigergraph', 'tigergraph') },
      body: JSON.stringify({ user: ALICE.name }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ended: 3 });
    for (const cookie of cookies) await refusedEverywhere(cookie);
  });
});
