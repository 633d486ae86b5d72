import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import supertest from 'supertest';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { json, jsonError, makeHome, runCli } from '../cli/cli-harness.js';
import { ALICE, basic, BOB, SIM_USERS } from './admin-harness.js';

const OPERATOR = { name: 'tigergraph', password: 'tigergraph' };

/** Two secrets whose masked forms (first and last 3 characters) are the same: `abc****xyz`. */
const twin = (middle: string) => `abc${middle.repeat(26)}xyz`;

/**
 * Issue 40, item 3, by a secret's alias. On 4.1+ the REST secrets API answers the value in clear (TG docs 4.1,
 * *User credentials*), so the alias names exactly one secret; on 3.x SHOW SECRET shows it masked, matched by a
 * keyed fingerprint of the masked form, and two secrets can share one: `list` shows both, `end` refuses them
 * unless `allMatching`.
 */
// The masked index is a store's (Redis, memory); the exact lookup is the same on either, so Redis only.
describe.each([
  ['3.9.3', 'redis'],
  ['4.1.0', 'redis'],
  ['3.9.3', 'memory'],
] as const)('the operator ends a secret’s sessions by alias (TigerGraph %s, %s store)', (version, store) => {
  const masked = version.startsWith('3.');
  let rig: Rig;
  let url: string;
  let home: Awaited<ReturnType<typeof makeHome>>;
  beforeAll(async () => {
    rig = await startRig({
      store,
      sim: { ...SIM_USERS, version },
      env: { ADMIN_ROUTES: 'true', SESSION_OPERATORS: 'tigergraph,bob', REDIS_COMMAND_TIMEOUT_MS: '4000' },
      label: 'operator-alias',
    });
    url = await rig.listen();
    home = await makeHome();
  });
  afterAll(async () => {
    await home?.remove();
    await rig?.close();
  });

  const call = (what: 'list' | 'end', body: unknown, who: { name: string; password: string } | null = OPERATOR) => {
    const req = supertest(rig.service.app).post(`/admin/sessions/${what}`).set('X-Requested-With', 'XMLHttpRequest');
    return (who === null ? req : req.set('Authorization', basic(who.name, who.password))).send(body as object);
  };

  test('when the operator names an alias of theirs, then its sessions are listed and ended, and no other secret’s', async () => {
    const { value } = rig.sim.createSecret({ alias: 'ops_app' });
    const agents = [await rig.login(value), await rig.login(value)];
    const bystander = await rig.login();

    const listed = await call('list', { alias: 'ops_app' });
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ match: masked ? 'masked' : 'exact', credentials: 1 });
    expect(listed.body.sessions).toHaveLength(2);
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(value);
    expect(text).not.toContain(`${value.slice(0, 3)}****`);

    const ended = await call('end', { alias: 'ops_app' });
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({ ended: 2 });
    for (const agent of agents) expect((await agent.get('/auth/session')).body.error.code).toBe('session_ended');
    expect((await bystander.get('/auth/session')).status).toBe(200);
    const events = rig
      .audit()
      .split('\n')
      .filter((l) => l.includes('"reason":"operator"'));
    expect(events.length).toBeGreaterThanOrEqual(2);
    // Neither the secret nor its shown characters anywhere: logs, or Redis key names and members.
    expect(rig.logs()).not.toContain(value);
    if (store === 'memory') return;
    const redis = rig.redis();
    const keys = await redis.keys(`${rig.prefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    const shown = `${value.slice(0, 3)}****${value.slice(-3)}`;
    for (const key of keys) {
      expect(key).not.toContain(shown);
      if ((await redis.type(key)) === 'zset')
        for (const member of await redis.zrange(key, 0, -1)) expect([value, shown]).not.toContain(member);
    }
  });

  test('when an alias is unknown, another user’s, oddly spelt or sent without credentials, then 404, 400 or 401, and nothing ends', async () => {
    const { value } = rig.sim.createSecret({ alias: 'alice_app', user: ALICE.name });
    const hers = await rig.login(value);

    const unknown = await call('end', { alias: 'no_such_alias' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('secret_not_found');
    // Hers, not the operator's: not found among the operator's own.
    expect((await call('end', { alias: 'alice_app' })).body.error.code).toBe('secret_not_found');
    // Aliases are exact: another case is another alias.
    expect((await call('end', { alias: 'ALICE_APP' })).status).toBe(404);
    for (const body of [
      { alias: '' },
      { alias: 'a b' },
      { alias: '../alice_app' },
      { alias: 'x'.repeat(200) },
      { alias: 7 },
      { alias: 'alice_app', user: ALICE.name },
      { owner: ALICE.name },
      { user: ALICE.name, allMatching: true },
      { alias: 'alice_app', allMatching: 'yes' },
    ]) {
      const res = await call('end', body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
    const anonymous = await call('end', { alias: 'alice_app', owner: ALICE.name }, null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('not_authenticated');
    // Alice owns it but is no operator.
    const notOperator = await call('end', { alias: 'alice_app' }, ALICE);
    expect(notOperator.status).toBe(403);
    expect((await hers.get('/auth/session')).status).toBe(200);

    const byOwner = await call('end', { alias: 'alice_app', owner: ALICE.name });
    if (masked) {
      // SHOW SECRET shows only the caller's own secrets on 3.x: named plainly, not guessed at.
      expect(byOwner.status).toBe(400);
      expect(byOwner.body.error.message).toMatch(/owner/);
      expect((await hers.get('/auth/session')).status).toBe(200);
    } else {
      // 4.1+: the superuser reads her secret (userName=alice) and ends exactly its sessions.
      expect(byOwner.body).toEqual({ ended: 1 });
      expect((await hers.get('/auth/session')).body.error.code).toBe('session_ended');
    }
    // bob is an operator but no superuser: TigerGraph does not show him alice's secrets (4.1+: its 403 is ours).
    const { value: again } = rig.sim.createSecret({ alias: 'alice_app2', user: ALICE.name });
    const hersAgain = await rig.login(again);
    const byBob = await call('end', { alias: 'alice_app2', owner: ALICE.name }, BOB);
    expect(byBob.status).toBe(masked ? 400 : 403);
    expect(byBob.body.error.code).toBe(masked ? 'invalid_request' : 'forbidden');
    expect((await hersAgain.get('/auth/session')).status).toBe(200);
  });

  test('when two secrets share a masked value, then list shows both, end refuses without allMatching (3.x), and 4.1+ ends only the named one', async () => {
    const mine = twin('m');
    const hers = twin('h');
    rig.sim.createSecret({ alias: 'twin_mine', value: mine });
    rig.sim.createSecret({ alias: 'twin_hers', value: hers, user: ALICE.name });
    const myAgent = await rig.login(mine);
    const herAgent = await rig.login(hers);

    const listed = await call('list', { alias: 'twin_mine' });
    expect(listed.status).toBe(200);
    if (masked) {
      expect(listed.body).toMatchObject({ match: 'masked', credentials: 2 });
      const tags = new Set(listed.body.sessions.map((s: { credential: string }) => s.credential));
      expect(tags.size).toBe(2);
      const refused = await call('end', { alias: 'twin_mine' });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('alias_ambiguous');
      expect((await myAgent.get('/auth/session')).status).toBe(200);
      expect((await herAgent.get('/auth/session')).status).toBe(200);
      expect((await call('end', { alias: 'twin_mine', allMatching: true })).body).toEqual({ ended: 2 });
      expect((await herAgent.get('/auth/session')).body.error.code).toBe('session_ended');
    } else {
      expect(listed.body).toMatchObject({ match: 'exact', credentials: 1 });
      expect(listed.body.sessions).toHaveLength(1);
      expect(listed.body.sessions[0].credential).toBeUndefined();
      expect((await call('end', { alias: 'twin_mine' })).body).toEqual({ ended: 1 });
      expect((await herAgent.get('/auth/session')).status).toBe(200);
    }
    expect((await myAgent.get('/auth/session')).body.error.code).toBe('session_ended');
  });

  // The CLI is a client of the route: on Redis only (each run starts a process).
  (store === 'redis' ? test : test.skip)(
    'when tgbff sessions list and end name an alias, then they list and end its sessions',
    async () => {
      const { value } = rig.sim.createSecret({ alias: 'cli_app' });
      const agent = await rig.login(value);
      const env = { TG_PASSWORD: OPERATOR.password };
      const base = ['--alias', 'cli_app', '--service', url, '--admin', OPERATOR.name, '--json'];
      const list = await runCli(['sessions', 'list', ...base], { env, home: home.dir });
      expect(list.code).toBe(0);
      expect(json(list)).toMatchObject({ match: masked ? 'masked' : 'exact', credentials: 1 });
      const end = await runCli(['sessions', 'end', ...base], { env, home: home.dir });
      expect(end.code).toBe(0);
      expect(json(end)).toEqual({ ended: 1 });
      expect((await agent.get('/auth/session')).body.error.code).toBe('session_ended');
      const unknown = await runCli(['sessions', 'end', '--alias', 'nope_app', ...base.slice(2)], {
        env,
        home: home.dir,
      });
      expect(unknown.code).toBe(4);
      expect(jsonError(unknown).code).toBe('secret_not_found');
      const usage = await runCli(['sessions', 'end', '--owner', ALICE.name, '--user', 'x', ...base.slice(2)], {
        env,
        home: home.dir,
      });
      expect(usage.code).toBe(2);
      expect(list.stdout + list.stderr + end.stdout + end.stderr).not.toContain(value);
    },
  );
});

describe('hostile operator: lookups by alias spend the admin budget', () => {
  const BUDGET = 2;
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({
      sim: { ...SIM_USERS, version: '4.1.0' },
      env: {
        ADMIN_ROUTES: 'true',
        SESSION_OPERATORS: 'tigergraph',
        ADMIN_CREDENTIAL_BUDGET: String(BUDGET),
        REDIS_COMMAND_TIMEOUT_MS: '4000',
      },
      label: 'operator-alias-budget',
    });
  });
  afterAll(() => rig?.close());

  test('when one operator looks up more aliases than ADMIN_CREDENTIAL_BUDGET, then the rest are 429 and never reach the admin server', async () => {
    const lookups = () =>
      rig.sim.seen().filter((r) => r.method === 'GET' && r.path.startsWith('/gsql/v1/secrets/')).length;
    const list = (alias: string) =>
      supertest(rig.service.app)
        .post('/admin/sessions/list')
        .set('X-Requested-With', 'XMLHttpRequest')
        .set('Authorization', basic(OPERATOR.name, OPERATOR.password))
        .send({ alias });
    expect((await list('guess_one')).status).toBe(404);
    expect((await list('guess_two')).status).toBe(404);
    expect(lookups()).toBe(BUDGET);
    const spent = await list('guess_three');
    expect(spent.status).toBe(429);
    expect(spent.body.error.code).toBe('rate_limited');
    expect(lookups()).toBe(BUDGET);
  });
});
