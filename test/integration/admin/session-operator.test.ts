import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import supertest from 'supertest';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { scrape } from '../observability/prom-text.js';
import { json, jsonError, makeHome, runCli } from '../cli/cli-harness.js';
import { ALICE, basic, BOB, SIM_USERS } from './admin-harness.js';

const OPERATOR = { name: 'tigergraph', password: 'tigergraph' };

/**
 * Issue 40, item 3: the operator's switch. /admin/sessions lists and ends every session of a named principal
 * (a TigerGraph user, a secret; the SSO subject in test/integration/sessions/sessions-instances.test.ts),
 * authorised by admin-server credentials of a SESSION_OPERATORS user, audited; `tgbff sessions` calls it.
 */
describe.each(['redis', 'memory'] as const)('the operator ends a principal’s sessions (%s store)', (store) => {
  let rig: Rig;
  let url: string;
  let home: Awaited<ReturnType<typeof makeHome>>;
  beforeAll(async () => {
    rig = await startRig({
      store,
      sim: SIM_USERS,
      env: { ADMIN_ROUTES: 'true', PASSWORD_LOGIN: 'true', SESSION_OPERATORS: 'tigergraph' },
      label: 'session-operator',
    });
    url = await rig.listen();
    home = await makeHome();
  });
  afterAll(async () => {
    await home?.remove();
    await rig?.close();
  });

  const asOperator = (path: string, body: unknown, who = OPERATOR) =>
    supertest(rig.service.app)
      .post(path)
      .set('X-Requested-With', 'XMLHttpRequest')
      .set('Authorization', basic(who.name, who.password))
      .send(body as object);

  const aliceLogin = async (): Promise<supertest.Agent> => {
    const agent = rig.agent();
    const res = await agent
      .post('/auth/login')
      .send({ username: ALICE.name, password: ALICE.password, graph: 'social' });
    expect(res.status).toBe(200);
    return agent;
  };

  test('when the operator lists and ends a secret’s sessions, then both end (401 session_ended), their tokens are deleted and the audit names the operator', async () => {
    const { value } = rig.sim.createSecret({ alias: 'op_secret' });
    const agents = [await rig.login(value), await rig.login(value)];
    const bystander = await rig.login();
    const listed = await asOperator('/admin/sessions/list', { secret: value });
    expect(listed.status).toBe(200);
    expect(listed.body.sessions).toHaveLength(2);
    expect(JSON.stringify(listed.body)).not.toContain(value);
    const deletesBefore = rig.sim.seen().filter((r) => r.method === 'DELETE' && r.path === '/requesttoken').length;

    const ended = await asOperator('/admin/sessions/end', { secret: value });
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({ ended: 2 });
    for (const agent of agents) {
      const res = await agent.get('/api/echo');
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('session_ended');
      expect(res.body.error.message).toMatch(/operator/);
    }
    expect((await bystander.get('/auth/session')).status).toBe(200);
    expect(
      rig.sim.seen().filter((r) => r.method === 'DELETE' && r.path === '/requesttoken').length - deletesBefore,
    ).toBeGreaterThanOrEqual(2);
    const events = rig
      .audit()
      .split('\n')
      .filter((l) => l.includes('"reason":"operator"'));
    expect(events).toHaveLength(2);
    for (const e of events) expect(JSON.parse(e)).toMatchObject({ by: { operator: 'tigergraph' } });
    // Counted as the operator's ends, none as the person's.
    const metrics = await scrape(rig.service.metricsApp);
    expect(metrics.value('tgbff_sessions_ended_total', { reason: 'operator' })).toBe(2);
    expect(metrics.value('tgbff_sessions_ended_total', { reason: 'ended' })).toBe(0);
    expect((await asOperator('/admin/sessions/list', { secret: value })).body).toEqual({ sessions: [] });
  });

  test('when a TigerGraph user has password sessions, then the operator sees and ends them; alice is not an operator, and a wrong password is 401', async () => {
    const [one, two] = [await aliceLogin(), await aliceLogin()];
    // Not an operator: her own valid credentials are 403, anything she names.
    const notOperator = await asOperator('/admin/sessions/end', { user: ALICE.name }, ALICE);
    expect(notOperator.status).toBe(403);
    expect(notOperator.body.error.code).toBe('forbidden');
    const wrong = await asOperator(
      '/admin/sessions/end',
      { user: ALICE.name },
      { name: 'tigergraph', password: 'nope' },
    );
    expect(wrong.status).toBe(401);
    expect((await one.get('/auth/session')).status).toBe(200);
    // Exactly one principal per call, in a body.
    for (const body of [{}, { user: 'alice', subject: 'x' }, { user: '' }, { users: 'alice' }]) {
      const res = await asOperator('/admin/sessions/list', body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
    // `Alice` is another principal (issue 42, item 4): nothing of alice's.
    expect((await asOperator('/admin/sessions/list', { user: 'Alice' })).body).toEqual({ sessions: [] });

    const listed = await asOperator('/admin/sessions/list', { user: ALICE.name });
    expect(listed.body.sessions.map((s: { login: string }) => s.login)).toEqual(['password', 'password']);
    expect((await asOperator('/admin/sessions/end', { user: ALICE.name })).body).toEqual({ ended: 2 });
    for (const agent of [one, two]) expect((await agent.get('/auth/session')).body.error.code).toBe('session_ended');
  });

  // The CLI is a client of the route: once, on the Redis store, is enough (each run starts a process).
  if (store === 'redis')
    test('when tgbff sessions list and end run against the service, then they list and end alice’s sessions', async () => {
      await aliceLogin();
      const env = { TG_PASSWORD: OPERATOR.password };
      const list = await runCli(
        ['sessions', 'list', '--user', ALICE.name, '--service', url, '--admin', OPERATOR.name, '--json'],
        { env, home: home.dir },
      );
      expect(list.code).toBe(0);
      expect((json(list).sessions as unknown[]).length).toBe(1);
      const end = await runCli(['sessions', 'end', '--user', ALICE.name, '--service', url, '--admin', OPERATOR.name], {
        env,
        home: home.dir,
      });
      expect(end.code).toBe(0);
      expect(end.stdout).toContain('ended 1 session of user alice');
      expect(end.stdout + end.stderr).not.toContain(OPERATOR.password);
      // A user that SESSION_OPERATORS does not name: exit 3, the service's reason.
      const refused = await runCli(
        ['sessions', 'end', '--user', ALICE.name, '--service', url, '--admin', BOB.name, '--json'],
        { env: { TG_PASSWORD: BOB.password }, home: home.dir },
      );
      expect(refused.code).toBe(3);
      expect(jsonError(refused).code).toBe('forbidden');
      // A secret principal from standard input, never a flag.
      const { value } = rig.sim.createSecret({ alias: 'op_cli_secret' });
      await rig.login(value);
      const bySecret = await runCli(
        ['sessions', 'end', '--secret', '--service', url, '--admin', OPERATOR.name, '--json'],
        {
          env,
          home: home.dir,
          input: `${value}\n`,
        },
      );
      expect(bySecret.code).toBe(0);
      expect(json(bySecret)).toEqual({ ended: 1 });
    });
});
