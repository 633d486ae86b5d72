/**
 * Token calls slowed on purpose must land on the right side of the client timeout: beside other files they hit 504
 */
import { CSRF, startRig, type Rig } from '../../helpers/app-rig.js';
import { testClock } from '../../helpers/clock.js';
import { scrape } from './prom-text.js';

describe('login metrics after real logins', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ env: { LOGIN_RATE_LIMIT: '2', LOGIN_RATE_WINDOW: '600' } });
  });
  afterAll(() => rig.close());

  test('when logins succeed, fail, hit a broken token endpoint and the rate limit, then each result is counted exactly', async () => {
    const login = (secret: string) => rig.agent().post('/auth/login').set(CSRF).send({ secret, graph: 'social' });
    expect((await login(rig.secret)).status).toBe(200);
    rig.sim.setFaults({ tokenForcedStatus: 500 });
    expect((await login(rig.secret)).status).toBe(502);
    rig.sim.setFaults({});
    // Only refused secrets count against LOGIN_RATE_LIMIT: the success and the upstream failure did not.
    expect((await login('wrong-secret-1')).status).toBe(401);
    expect((await login('wrong-secret-2')).status).toBe(401);
    const limited = await login(rig.secret);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');

    const m = await scrape(rig.service.metricsApp);
    expect(m.types.tgbff_logins_total).toBe('counter');
    expect(m.value('tgbff_logins_total', { result: 'ok' })).toBe(1);
    expect(m.value('tgbff_logins_total', { result: 'invalid' })).toBe(2);
    expect(m.value('tgbff_logins_total', { result: 'error' })).toBe(1);
    expect(m.value('tgbff_logins_total', { result: 'rate_limited' })).toBe(1);
    expect(m.value('tgbff_guesses_limited_total', { route: 'login', scope: 'address' })).toBe(1);
    // A rate-limited attempt never reaches the token endpoint.
    expect(m.value('tgbff_token_calls_total', { op: 'mint', result: 'ok' })).toBe(1);
    expect(m.value('tgbff_token_calls_total', { op: 'mint', result: 'error' })).toBe(3);
    expect(rig.sim.counts()['POST /requesttoken']).toBe(4);
    // Refused secrets are answers, not failures; only the broken endpoint counts as an upstream error.
    expect(m.sum('tgbff_upstream_errors_total')).toBe(1);
    expect(m.value('tgbff_upstream_errors_total', { kind: 'protocol' })).toBe(1);
  });
});

/**
 * UPSTREAM_TIMEOUT_MS also bounds token calls, to half of it: a refresh that runs out of its half leaves the
 * request the other half to be served on the current token. 1000 ms left 500 ms for that, which a process
 * waiting for the CPU missed (504).
 */
const UPSTREAM_TIMEOUT_MS = 4000;

describe('token call metrics after real sessions', () => {
  let rig: Rig;
  const clock = testClock();
  beforeAll(async () => {
    rig = await startRig({
      now: clock.now,
      env: { TG_TOKEN_LIFETIME: '1000', TOKEN_REFRESH_BEFORE: '100', UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS) },
    });
  });
  afterAll(() => rig.close());

  test('when tokens are minted, refreshed (once failing) and deleted (once failing), then each op and result is counted exactly', async () => {
    const agent = await rig.login();
    clock.advance(950_000); // inside TOKEN_REFRESH_BEFORE
    expect((await agent.get('/api/echo')).status).toBe(200);

    clock.advance(950_000);
    rig.sim.setFaults({ tokenForcedStatus: 500 });
    expect((await agent.get('/api/echo')).status).toBe(200); // the due token still works, so it is used
    rig.sim.setFaults({});
    expect((await agent.get('/api/echo')).status).toBe(200); // still due: refreshed now
    expect((await agent.post('/auth/logout')).status).toBe(204);

    const other = await rig.login();
    rig.sim.setFaults({ tokenForcedStatus: 500 });
    expect((await other.post('/auth/logout')).status).toBe(204); // the session ends even if the delete fails
    rig.sim.setFaults({});

    const m = await scrape(rig.service.metricsApp);
    expect(m.types.tgbff_token_calls_total).toBe('counter');
    const calls = (op: string, result: string) => m.value('tgbff_token_calls_total', { op, result });
    expect({
      mintOk: calls('mint', 'ok'),
      mintError: calls('mint', 'error'),
      refreshOk: calls('refresh', 'ok'),
      refreshError: calls('refresh', 'error'),
      deleteOk: calls('delete', 'ok'),
      deleteError: calls('delete', 'error'),
    }).toEqual({ mintOk: 2, mintError: 0, refreshOk: 2, refreshError: 1, deleteOk: 1, deleteError: 1 });
    expect(rig.sim.counts()['PUT /requesttoken']).toBe(3);
    expect(rig.sim.counts()['DELETE /requesttoken']).toBe(2);
    expect(m.value('tgbff_upstream_errors_total', { kind: 'protocol' })).toBe(2); // the failed refresh and delete
  });

  test('when the token endpoint is too slow or gone, then token calls count as timeout and unavailable upstream errors', async () => {
    const before = await scrape(rig.service.metricsApp);
    const agent = await rig.login();
    clock.advance(950_000);
    rig.sim.setFaults({ tokenLatencyMs: UPSTREAM_TIMEOUT_MS }); // past the token call's half of the deadline
    try {
      expect((await agent.get('/api/echo')).status).toBe(200); // the refresh timed out; the current token serves
    } finally {
      rig.sim.setFaults({});
    }
    await rig.sim.close();
    const login = await rig.agent().post('/auth/login').set(CSRF).send({ secret: rig.secret, graph: 'social' });
    expect(login.status).toBe(502);
    expect(login.body.error.code).toBe('upstream_unavailable');
    const after = await scrape(rig.service.metricsApp);
    const delta = (kind: string) =>
      after.value('tgbff_upstream_errors_total', { kind }) - before.value('tgbff_upstream_errors_total', { kind });
    expect({ timeout: delta('timeout'), unavailable: delta('unavailable') }).toEqual({ timeout: 1, unavailable: 1 });
  });
});
