import supertest from 'supertest';
import { CSRF, startRig, type Rig } from '../../helpers/app-rig.js';
import { ALICE, basic, BOB, dropsSeen, secretsOf, SIM_USERS } from './admin-harness.js';
import { manualClock } from '../../helpers/clock.js';

/** 4.1+: secrets are not bound to a graph and the admin server has a REST secrets API. */
describe('password login, sweep and admin routes on 4.1', () => {
  const clock = manualClock();
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({
      sim: { ...SIM_USERS, version: '4.1.0' },
      now: clock.now,
      env: {
        PASSWORD_LOGIN: 'true',
        ADMIN_ROUTES: 'true',
        LOGIN_RATE_LIMIT: '1000',
        SESSION_IDLE_TIMEOUT: '60',
        SESSION_ABSOLUTE_TIMEOUT: '60',
      },
      secretSweep: { intervalMs: 3_600_000 },
    });
  });
  afterAll(() => rig.close());

  const login = (body: object) => {
    const agent = rig.agent();
    return agent
      .post('/auth/login')
      .send(body)
      .then((res) => ({ agent, res }));
  };

  test('when alice logs in without a graph, then a tgbff_ secret is made over REST, /api works and logout drops it', async () => {
    const { agent, res } = await login({ username: ALICE.name, password: ALICE.password });
    expect(res.status).toBe(200);
    expect(res.body.graph).toBeNull();
    const alias = rig.sim.tokens().at(-1)!.secretAlias;
    expect(alias).toMatch(/^tgbff_/);
    expect(
      rig.sim.seen().some((r) => r.method === 'POST' && r.path === '/gsql/v1/secrets' && r.query.includes(alias)),
    ).toBe(true);
    expect((await agent.get('/api/echo')).status).toBe(200);
    expect((await agent.post('/auth/logout')).status).toBe(204);
    expect(dropsSeen(rig.sim, alias)).toBe(1);
    expect((await secretsOf(rig.sim, ALICE)).map((s) => s.alias)).not.toContain(alias);
  });

  test('when bob names a graph he has no privilege on, then login is 403 forbidden', async () => {
    const { res } = await login({ username: BOB.name, password: BOB.password, graph: 'social' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(await secretsOf(rig.sim, BOB)).toEqual([]);
  });

  test('when a 4.1 session expires without logout, then the sweep drops its secret over REST', async () => {
    const { res } = await login({ username: ALICE.name, password: ALICE.password, graph: 'social' });
    expect(res.status).toBe(200);
    const alias = rig.sim.tokens().at(-1)!.secretAlias;
    clock.advance(60_001);
    expect(await rig.service.sweeper!.sweep()).toEqual({ dropped: 1, gone: 0, failed: 0 });
    expect(rig.sim.seen().some((r) => r.method === 'DELETE' && r.path === `/gsql/v1/secrets/${alias}`)).toBe(true);
    expect((await secretsOf(rig.sim, ALICE)).map((s) => s.alias)).not.toContain(alias);
  });

  test('when alice uses the admin routes without a graph, then list, create and drop work', async () => {
    const http = supertest(rig.service.app);
    const auth = basic(ALICE.name, ALICE.password);
    const made = await http.post('/admin/secrets').set(CSRF).set('Authorization', auth).send({ alias: 'v41_made' });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({ alias: 'v41_made', secret: expect.any(String) });
    const list = await http.get('/admin/secrets').set('Authorization', auth);
    expect(list.status).toBe(200);
    expect(list.body.secrets).toContainEqual({
      alias: 'v41_made',
      secret: `${made.body.secret.slice(0, 3)}****${made.body.secret.slice(-3)}`,
    });
    expect(JSON.stringify(list.body)).not.toContain(made.body.secret);
    const drop = await http.delete('/admin/secrets/v41_made').set(CSRF).set('Authorization', auth);
    expect(drop.status).toBe(204);
    const again = await http.delete('/admin/secrets/v41_made').set(CSRF).set('Authorization', auth);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('secret_not_found');
  });
});
