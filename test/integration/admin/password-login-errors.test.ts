import supertest from 'supertest';
import { CSRF, startRig, type Rig } from '../../helpers/app-rig.js';
import { ALICE, BOB, gsqlUsersSeen, secretsOf, SIM_USERS } from './admin-harness.js';
import { freePort } from '../../helpers/ports.js';
import { until } from '../../helpers/wait.js';

const post = (rig: Rig, body: object, from = '10.0.0.1') =>
  supertest(rig.service.app).post('/auth/login').set(CSRF).set('X-Forwarded-For', from).send(body);

const alice = (extra: object = {}) => ({ username: ALICE.name, password: ALICE.password, graph: 'social', ...extra });

describe('password login: refusals and admin-server failures', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({
      sim: SIM_USERS,
      env: { PASSWORD_LOGIN: 'true', LOGIN_RATE_LIMIT: '1000', TRUST_PROXY: 'true' },
    });
  });
  afterEach(() => rig.sim.setFaults({}));
  afterAll(() => rig.close());

  test('when the password is wrong, then login is 401 invalid_credentials, no cookie, no secret and no password echoed', async () => {
    const before = await secretsOf(rig.sim, ALICE);
    const res = await post(rig, alice({ password: 'wrong-password-123' }));
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_credentials');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toContain('wrong-password-123');
    expect(rig.logs()).not.toContain('wrong-password-123');
    expect(await secretsOf(rig.sim, ALICE)).toEqual(before);
  });

  test('when the user has no privilege on the graph, then login is 403 forbidden and nothing is created', async () => {
    const from = rig.sim.seen().length;
    const res = await post(rig, { username: BOB.name, password: BOB.password, graph: 'social' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(await secretsOf(rig.sim, BOB)).toEqual([]);
    const statements = rig.sim
      .seen()
      .slice(from)
      .filter((r) => r.port === 'gsql')
      .map((r) => decodeURIComponent((r.bodyText ?? '').replace(/\+/g, ' ')));
    expect(statements).toEqual([expect.stringMatching(/^USE GRAPH social$/), expect.stringContaining('SHOW SECRET')]);
  });

  test.each([
    ['no graph (3.x secrets belong to a graph)', { username: 'alice', password: 'x' }],
    ['an empty username', { username: '', password: 'x', graph: 'social' }],
    ['a username over 128 characters', { username: 'a'.repeat(129), password: 'x', graph: 'social' }],
    ['a username that is not a string', { username: 7, password: 'x', graph: 'social' }],
    ['an empty password', { username: 'alice', password: '', graph: 'social' }],
    ['a password over 1024 characters', { username: 'alice', password: 'p'.repeat(1025), graph: 'social' }],
    ['a password without a username', { password: 'x', graph: 'social' }],
    ['a bad graph name', { username: 'alice', password: 'x', graph: 'so cial' }],
    ['a secret as well', { username: 'alice', password: 'x', graph: 'social', secret: 'abc' }],
  ])(
    'when the body has %s, then login is 400 invalid_request without calling the admin server',
    async (_name, body) => {
      const before = gsqlUsersSeen(rig.sim).length;
      const res = await post(rig, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(gsqlUsersSeen(rig.sim).length).toBe(before);
    },
  );

  test('when minting a token with the new secret fails, then the secret is dropped again and its drop entry removed', async () => {
    const before = (await secretsOf(rig.sim, ALICE)).map((s) => s.alias);
    rig.sim.setFaults({ tokenForcedStatus: 500 });
    const res = await post(rig, alice());
    rig.sim.setFaults({});
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('upstream_error');
    expect(rig.sim.counts()['POST /requesttoken']).toBeGreaterThan(0);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect((await secretsOf(rig.sim, ALICE)).map((s) => s.alias)).toEqual(before);
    expect(await rig.redis().zcard(`${rig.prefix}secret-drops`)).toBe(0);
  });

  describe('rate limits', () => {
    let limited: Rig;
    beforeAll(async () => {
      limited = await startRig({
        sim: SIM_USERS,
        env: { PASSWORD_LOGIN: 'true', LOGIN_RATE_LIMIT: '3', LOGIN_USER_LIMIT: '3', TRUST_PROXY: 'true' },
      });
    });
    afterAll(() => limited.close());

    test('when one username fails from many addresses, then it is 429 for that username (any case) and others still get through', async () => {
      for (const from of ['10.1.0.1', '10.1.0.2', '10.1.0.3']) {
        expect((await post(limited, alice({ password: 'nope' }), from)).status).toBe(401);
      }
      const before = gsqlUsersSeen(limited.sim).length;
      const res = await post(limited, alice({ username: 'Alice', password: ALICE.password }), '10.1.0.4');
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('rate_limited');
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(gsqlUsersSeen(limited.sim).length).toBe(before);
      const other = await post(limited, { username: BOB.name, password: 'nope', graph: 'social' }, '10.1.0.4');
      expect(other.status).toBe(401);
      const metric = await limited.service.metrics.registry.getSingleMetricAsString('tgbff_guesses_limited_total');
      expect(metric).toContain('tgbff_guesses_limited_total{route="login",scope="user"} 1');
    });

    test('when one address tries many usernames, then it is 429 for that address and other addresses still get through', async () => {
      for (const name of ['carol', 'dave', 'erin']) {
        expect((await post(limited, { username: name, password: 'nope', graph: 'social' }, '10.2.0.1')).status).toBe(
          401,
        );
      }
      const res = await post(limited, { username: 'frank', password: 'nope', graph: 'social' }, '10.2.0.1');
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('rate_limited');
      expect((await post(limited, { username: 'frank', password: 'nope', graph: 'social' }, '10.2.0.2')).status).toBe(
        401,
      );
    });
  });
});

describe('password login when switched off or the admin server is down', () => {
  test('when PASSWORD_LOGIN is off, then a username/password body is 400 invalid_request saying so', async () => {
    const rig = await startRig({ sim: SIM_USERS });
    try {
      const res = await post(rig, alice());
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.message).toMatch(/password login is disabled/i);
      expect(gsqlUsersSeen(rig.sim)).toEqual([]);
      expect(rig.service.sweeper).toBeUndefined();
    } finally {
      await rig.close();
    }
  });

  test('when the admin server is unreachable, then login is 502 upstream_unavailable', async () => {
    const rig = await startRig({
      sim: SIM_USERS,
      gsqlUrl: `http://127.0.0.1:${await freePort()}`,
      env: { PASSWORD_LOGIN: 'true' },
    });
    try {
      const res = await post(rig, alice());
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe('upstream_unavailable');
      expect(res.headers['set-cookie']).toBeUndefined();
      // Named as the admin server's fault, with its setting (issue 43), and reported in /readyz.
      await until('the admin server fault line', () => rig.logs().includes('"fault":"tigergraph_admin_refused"'));
      expect(rig.logs()).toMatch(/"fault":"tigergraph_admin_refused"[^\n]*"setting":"TG_GSQL_URL"/);
      const ready = await rig.agent().get('/readyz');
      expect([ready.status, ready.body.checks.admin]).toEqual([200, 'unavailable']);
      expect(rig.logs()).not.toContain(ALICE.password);
    } finally {
      await rig.close();
    }
  });

  test('when the admin server answers too slowly, then login is 504 upstream_timeout', async () => {
    const rig = await startRig({ sim: SIM_USERS, env: { PASSWORD_LOGIN: 'true', UPSTREAM_TIMEOUT_MS: '500' } });
    try {
      rig.sim.setFaults({ latencyMs: 3000 });
      const res = await post(rig, alice());
      expect(res.status).toBe(504);
      expect(res.body.error.code).toBe('upstream_timeout');
    } finally {
      await rig.close();
    }
  });
});
