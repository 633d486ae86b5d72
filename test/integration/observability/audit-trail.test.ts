import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import supertest from 'supertest';
import { createAudit } from '../../../src/observability/audit.js';
import { startSimulator } from '../../../src/simulator/index.js';
import { CSRF, startRig, type Rig } from '../../helpers/app-rig.js';
import { auditValidator } from '../../helpers/audit-schema.js';
import { sidOf } from '../../helpers/cookies.js';
import { startServiceProcess } from '../../helpers/service-process.js';
import { ALICE, SIM_USERS } from '../admin/admin-harness.js';

const schema = auditValidator();

describe('the audit trail through the app', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({
      sim: SIM_USERS,
      label: 'audit',
      env: { PASSWORD_LOGIN: 'true', ADMIN_ROUTES: 'true', LOGIN_RATE_LIMIT: '3', LOGIN_USER_LIMIT: '1000' },
    });
  });
  afterAll(() => rig.close());

  test('when sessions log in, relay, log out, fail and get limited, then each step is an event that matches the schema and carries no secret', async () => {
    const cookies: string[] = [];
    const secretAgent = rig.agent();
    const first = await secretAgent.post('/auth/login').send({ secret: rig.secret, graph: 'social' });
    expect(first.status).toBe(200);
    cookies.push(first.headers['set-cookie']![0]!);
    expect((await secretAgent.get('/api/echo')).status).toBe(200);
    expect((await secretAgent.post('/auth/logout')).status).toBe(204);

    const alice = rig.agent();
    const second = await alice
      .post('/auth/login')
      .send({ username: ALICE.name, password: ALICE.password, graph: 'social' });
    expect(second.status).toBe(200);
    cookies.push(second.headers['set-cookie']![0]!);
    // A second login in the same browser replaces the first session.
    const again = await alice.post('/auth/login').send({ secret: rig.secret, graph: 'social' });
    expect(again.status).toBe(200);
    cookies.push(again.headers['set-cookie']![0]!);
    expect((await alice.post('/auth/logout')).status).toBe(204);

    // Failures until the guess limit (3 per address) trips.
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push(
        (
          await rig
            .agent()
            .post('/auth/login')
            .send({ secret: `wrong-secret-${i}` })
        ).status,
      );
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    // A flood of refused logins is one line per kind in the window, not a synchronous write each.
    const flood = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        rig
          .agent()
          .post('/auth/login')
          .send({ secret: `wrong-secret-x${i}` }),
      ),
    );
    expect(new Set(flood.map((r) => r.status))).toEqual(new Set([429]));

    const text = rig.audit();
    expect(schema.problems(text)).toEqual([]);
    const events = schema.events(text);
    const names = events.map((e) => e.event);
    for (const name of [
      'login.succeeded',
      'token.minted',
      'logout',
      'session.ended',
      'token.deleted',
      'secret.created',
      'secret.dropped',
      'login.refused',
      'login.limited',
      'limiter.tripped',
    ])
      expect({ name, emitted: names.includes(name) }).toEqual({ name, emitted: true });

    const logins = events.filter((e) => e.event === 'login.succeeded');
    expect(logins.map((e) => e.login)).toEqual(['secret', 'password', 'secret']);
    expect(logins[1]).toMatchObject({ user: 'alice', graph: 'social', address: expect.any(String) });
    const ends = events.filter((e) => e.event === 'session.ended');
    expect(ends.map((e) => e.reason)).toEqual(['logout', 'replaced', 'logout']);
    // The same session is named by the same hash at login and at its end.
    expect(ends[1]!.session).toBe(logins[1]!.session);
    expect(events.filter((e) => e.event === 'login.refused')).toHaveLength(3);
    expect(events.find((e) => e.event === 'limiter.tripped')).toMatchObject({ limit: 'guess', route: 'login' });
    expect(events.filter((e) => e.event === 'login.limited')).toHaveLength(1);
    expect(events.filter((e) => e.event === 'limiter.tripped')).toHaveLength(1);

    // The leak scan: no secret, password, session id, cookie or token in any event.
    const tokens = rig.sim.tokens().map((t) => t.token);
    for (const needle of [
      rig.secret,
      ALICE.password,
      'wrong-secret-',
      ...cookies.map(sidOf),
      ...cookies.map((c) => c.split(';')[0]!),
      ...tokens,
    ])
      expect({ needle: needle.slice(0, 12), leaked: text.includes(needle) }).toEqual({
        needle: needle.slice(0, 12),
        leaked: false,
      });
  });

  test('when an event is built wrongly, then the schema check refuses it', () => {
    let text = '';
    const audit = createAudit({ destination: { write: (line: string) => void (text += line) } });
    audit.emit({ event: 'logout', login: 'secret', session: 'not-a-hash' });
    audit.emit({ event: 'login.refused', login: 'secret', reason: 'invalid', secret: 'x' } as never);
    expect(schema.problems(text)).toHaveLength(2);
  });
});

describe('the audit trail with quotas on', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ label: 'audit-quota', env: { QUOTA_RATE: '2', QUOTA_WINDOW: '60', QUOTA_BURST: '0' } });
  });
  afterAll(() => rig.close());

  test('when a user spends the quota, then the refusal is a limiter.tripped event that matches the schema', async () => {
    const agent = await rig.login();
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await agent.get('/api/echo')).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect(schema.problems(rig.audit())).toEqual([]);
    expect(schema.events(rig.audit()).filter((e) => e.event === 'limiter.tripped')).toEqual([
      expect.objectContaining({ limit: 'quota', scope: 'rate' }),
    ]);
  });
});

describe('the audit trail of a service process', () => {
  test('when AUDIT_LOG_FILE is set, then config.loaded and the login events go to that file, naming settings but no values', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tgbff-audit-'));
    const sim = await startSimulator({});
    const secret = sim.createSecret({ alias: 'audit_proc' }).value;
    const sessionSecret = 'audit-session-secret-value-0123456789abcdef';
    const file = join(dir, 'audit', 'trail.jsonl');
    const svc = await startServiceProcess({
      NODE_ENV: 'test',
      TG_RESTPP_URL: sim.restppUrl,
      TG_GSQL_URL: sim.gsqlUrl,
      TG_VERSION: sim.version,
      COOKIE_SECURE: 'false',
      SESSION_SECRET: sessionSecret,
      AUDIT_LOG_FILE: file,
    });
    try {
      const agent = supertest.agent(svc.url).set(CSRF);
      expect((await agent.post('/auth/login').send({ secret, graph: 'social' })).status).toBe(200);
      expect((await agent.post('/auth/logout')).status).toBe(204);
      const text = readFileSync(file, 'utf8');
      expect(schema.problems(text)).toEqual([]);
      const events = schema.events(text);
      expect(events[0]).toMatchObject({ event: 'config.loaded', audit: 'file', tracing: false });
      expect(events[0]!.settings).toEqual(
        expect.arrayContaining(['SESSION_SECRET', 'AUDIT_LOG_FILE', 'TG_RESTPP_URL']),
      );
      expect(events.map((e) => e.event)).toEqual(
        expect.arrayContaining(['login.succeeded', 'logout', 'session.ended']),
      );
      for (const needle of [sessionSecret, secret, sim.restppUrl]) expect(text.includes(needle)).toBe(false);
      // The request log stays on stdout, the audit trail is not mixed into it.
      expect(svc.output()).not.toContain('"stream":"audit"');
    } finally {
      await svc.kill();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the audit trail of a re-mint', () => {
  let remintRig: Rig;
  beforeAll(async () => {
    remintRig = await startRig({ label: 'audit-remint' });
  });
  afterAll(() => remintRig.close());

  test('when TigerGraph refuses the token of a session while ten requests use it, then the re-mint is one token.reminted event naming the session', async () => {
    const agent = remintRig.agent();
    const login = await agent.post('/auth/login').send({ secret: remintRig.secret, graph: 'social' });
    expect(login.status).toBe(200);
    const session = schema
      .events(remintRig.audit())
      .filter((e) => e.event === 'login.succeeded')
      .at(-1)!.session;
    expect((await agent.get('/api/echo')).status).toBe(200);
    const mark = remintRig.audit().length;
    const mintsBefore = remintRig.sim.counts()['POST /requesttoken'] ?? 0;
    for (const { token } of remintRig.sim.tokens()) remintRig.sim.revokeToken(token);
    const answers = await Promise.all(Array.from({ length: 10 }, () => agent.get('/api/echo')));
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    // Set-up holds: the refusal was met and one token minted for all ten.
    expect((remintRig.sim.counts()['POST /requesttoken'] ?? 0) - mintsBefore).toBe(1);
    const after = schema.events(remintRig.audit().slice(mark));
    expect(after.filter((e) => e.event === 'token.reminted')).toEqual([
      expect.objectContaining({ event: 'token.reminted', session }),
    ]);
  });
});
