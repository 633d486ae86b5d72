import { startRig, type Rig } from '../../helpers/app-rig.js';
import { sidOf } from '../../helpers/cookies.js';
import { ALICE, SIM_USERS } from '../admin/admin-harness.js';
import { waitForLines, type LogLine } from './log-lines.js';

const HASH = /^[A-Za-z0-9_-]{16}$/;
const PRINCIPAL_KEYS = ['login', 'user', 'graph', 'session'];

/** The access line of the request that sent `id` as its X-Request-Id (kept as `clientRequestId`: request-id.ts). */
async function accessLine(rig: Rig, id: string): Promise<LogLine> {
  const lines = await waitForLines(rig.logs, (l) => l.msg === 'request' && l.clientRequestId === id);
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('the principal in the access line', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ sim: SIM_USERS, env: { PASSWORD_LOGIN: 'true', LOGIN_RATE_LIMIT: '1000' } });
  });
  afterAll(() => rig.close());

  test('when a secret session logs in, relays a query and logs out, then every line names it by kind, graph and session hash, never by id', async () => {
    const agent = rig.agent();
    const login = await agent
      .post('/auth/login')
      .set('X-Request-Id', 'p-login')
      .send({ secret: rig.secret, graph: 'social' });
    expect(login.status).toBe(200);
    const sid = sidOf(login.headers['set-cookie']![0]!);
    const query = await agent.get('/api/query/social/hello?name=Ann').set('X-Request-Id', 'p-query');
    expect(query.status).toBe(200);
    const vertices = await agent.get('/api/graph/social/vertices/Person').set('X-Request-Id', 'p-vertices');
    expect(vertices.status).toBe(200);
    const logout = await agent.post('/auth/logout').set('X-Request-Id', 'p-logout');
    expect(logout.status).toBe(204);

    const lines = await Promise.all(['p-login', 'p-query', 'p-vertices', 'p-logout'].map((id) => accessLine(rig, id)));
    const [first] = lines;
    expect(first).toMatchObject({ login: 'secret', graph: 'social', session: expect.stringMatching(HASH) });
    expect(first).not.toHaveProperty('user');
    for (const line of lines) expect(line).toMatchObject({ login: 'secret', graph: 'social', session: first!.session });
    // The query is named beside the low-cardinality route; other relayed paths name none.
    expect(lines[1]).toMatchObject({ route: expect.stringMatching(/^\/api\/\*/), query: 'hello', status: 200 });
    expect(lines[2]).not.toHaveProperty('query');
    const text = rig.logs();
    expect(text).not.toContain(sid);
    expect(text).not.toContain(rig.secret);
    expect(text).not.toContain('name=Ann');
  });

  test('when two sessions of one secret act, then their session hashes differ', async () => {
    const a = await rig.login();
    const b = await rig.login();
    await a.get('/api/echo').set('X-Request-Id', 'p-two-a');
    await b.get('/api/echo').set('X-Request-Id', 'p-two-b');
    const [la, lb] = await Promise.all([accessLine(rig, 'p-two-a'), accessLine(rig, 'p-two-b')]);
    expect(la.session).toEqual(expect.stringMatching(HASH));
    expect(lb.session).toEqual(expect.stringMatching(HASH));
    expect(la.session).not.toBe(lb.session);
  });

  test('when nobody is logged in, a login fails, or a cookie is forged, then the line names no principal', async () => {
    await rig.agent().get('/api/query/social/hello').set('X-Request-Id', 'p-anon');
    await rig.agent().post('/auth/login').set('X-Request-Id', 'p-bad').send({ secret: 'wrong-secret-value' });
    await rig.agent().get('/api/echo').set('Cookie', 'tgbff=s%3Aforged.signature').set('X-Request-Id', 'p-forged');
    for (const id of ['p-anon', 'p-bad', 'p-forged']) {
      const line = await accessLine(rig, id);
      expect({ id, status: line.status }).toEqual({ id, status: 401 });
      for (const key of PRINCIPAL_KEYS) expect({ id, key, has: key in line }).toEqual({ id, key, has: false });
    }
  });

  test('when alice logs in with her password, then her lines name her', async () => {
    const agent = rig.agent();
    const res = await agent
      .post('/auth/login')
      .set('X-Request-Id', 'p-alice-login')
      .send({ username: ALICE.name, password: ALICE.password, graph: 'social' });
    expect(res.status).toBe(200);
    await agent.get('/api/echo').set('X-Request-Id', 'p-alice-echo');
    for (const id of ['p-alice-login', 'p-alice-echo'])
      expect(await accessLine(rig, id)).toMatchObject({ login: 'password', user: 'alice', graph: 'social' });
    expect(rig.logs()).not.toContain(ALICE.password);
  });
});

describe('the principal in the access line with LOG_USER_NAMES=hashed', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({
      sim: SIM_USERS,
      env: { PASSWORD_LOGIN: 'true', LOGIN_RATE_LIMIT: '1000', LOG_USER_NAMES: 'hashed' },
    });
  });
  afterAll(() => rig.close());

  test('when alice logs in and relays, then her lines carry one keyed hash and her name appears in no access line', async () => {
    const agent = rig.agent();
    const res = await agent
      .post('/auth/login')
      .set('X-Request-Id', 'h-login')
      .send({ username: ALICE.name, password: ALICE.password, graph: 'social' });
    expect(res.status).toBe(200);
    await agent.get('/api/echo').set('X-Request-Id', 'h-echo');
    const [login, echo] = await Promise.all([accessLine(rig, 'h-login'), accessLine(rig, 'h-echo')]);
    expect(login).toMatchObject({ login: 'password', user: expect.stringMatching(HASH) });
    expect(echo.user).toBe(login.user);
    expect(login.user).not.toBe(login.session);
    for (const line of [login, echo]) expect(JSON.stringify(line)).not.toContain('alice');
  });
});
