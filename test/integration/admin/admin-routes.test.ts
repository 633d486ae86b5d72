import supertest from 'supertest';
import { maskSecret } from '../../../packages/client/src/errors.js';
import { CSRF, startRig, type Rig } from '../../helpers/app-rig.js';
import { ALICE, basic, BOB, everythingStored, secretsOf, SIM_USERS } from './admin-harness.js';
import { freePort } from '../../helpers/ports.js';

const CHALLENGE = 'Basic realm="tigergraph-bff admin"';
const asAlice = basic(ALICE.name, ALICE.password);

describe('admin routes (ADMIN_ROUTES=true, 3.x)', () => {
  let rig: Rig;
  let known: { alias: string; value: string };
  const http = () => supertest(rig.service.app);
  beforeAll(async () => {
    rig = await startRig({ sim: SIM_USERS, env: { ADMIN_ROUTES: 'true', ALLOWED_ORIGINS: 'https://app.example.com' } });
    known = rig.sim.createSecret({ user: ALICE.name, graph: 'social', alias: 'alice_known' });
  });
  afterAll(() => rig.close());

  test('when alice lists her secrets, then she gets them masked and never cached, and her password is neither stored nor logged', async () => {
    const res = await http().get('/admin/secrets?graph=social').set('Authorization', asAlice);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.secrets).toContainEqual({ alias: 'alice_known', secret: maskSecret(known.value), graph: 'social' });
    expect(JSON.stringify(res.body)).not.toContain(known.value);
    expect(await everythingStored(rig.redis(), rig.prefix)).not.toContain(ALICE.password);
    expect(rig.logs()).not.toContain(ALICE.password);
  });

  test('when alice creates a secret, then it is 201 with the value once, and the value logs in', async () => {
    const res = await http()
      .post('/admin/secrets')
      .set(CSRF)
      .set('Authorization', asAlice)
      .send({ graph: 'social', alias: 'made_here' });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ alias: 'made_here', secret: expect.stringMatching(/^[a-z0-9]{32}$/) });
    expect((await secretsOf(rig.sim, ALICE)).find((s) => s.alias === 'made_here')?.secret).toBe(
      maskSecret(res.body.secret),
    );
    expect((await rig.agent().post('/auth/login').send({ secret: res.body.secret, graph: 'social' })).status).toBe(200);
    expect(rig.logs()).not.toContain(res.body.secret);
  });

  test('when no alias is given, then the admin server picks one and it comes back with the value', async () => {
    const res = await http().post('/admin/secrets').set(CSRF).set('Authorization', asAlice).send({ graph: 'social' });
    expect(res.status).toBe(201);
    expect(res.body.alias).toMatch(/^AUTO_GENERATED_ALIAS_/);
    expect((await secretsOf(rig.sim, ALICE)).map((s) => s.alias)).toContain(res.body.alias);
  });

  test('when the alias already exists, then create is 409 secret_exists', async () => {
    const res = await http()
      .post('/admin/secrets')
      .set(CSRF)
      .set('Authorization', asAlice)
      .send({ graph: 'social', alias: 'alice_known' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('secret_exists');
  });

  test('when alice drops a secret, then it is 204 and gone upstream; dropping it again is 404 secret_not_found', async () => {
    rig.sim.createSecret({ user: ALICE.name, graph: 'social', alias: 'to_drop' });
    const res = await http().delete('/admin/secrets/to_drop?graph=social').set(CSRF).set('Authorization', asAlice);
    expect(res.status).toBe(204);
    expect((await secretsOf(rig.sim, ALICE)).map((s) => s.alias)).not.toContain('to_drop');
    const again = await http().delete('/admin/secrets/to_drop?graph=social').set(CSRF).set('Authorization', asAlice);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('secret_not_found');
  });

  test.each([
    ['no Authorization header', undefined],
    ['a Bearer header', 'Bearer abc'],
    ['basic credentials without a colon', `Basic ${Buffer.from('alice').toString('base64')}`],
    ['basic credentials with an empty password', `Basic ${Buffer.from('alice:').toString('base64')}`],
  ])('when the request has %s, then it is 401 not_authenticated with a basic challenge', async (_name, header) => {
    const req = http().get('/admin/secrets?graph=social');
    const res = header === undefined ? await req : await req.set('Authorization', header);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('not_authenticated');
    expect(res.headers['www-authenticate']).toBe(CHALLENGE);
  });

  test('when the password is wrong, then it is 401 invalid_credentials with a basic challenge and no echo', async () => {
    const res = await http()
      .get('/admin/secrets?graph=social')
      .set('Authorization', basic(ALICE.name, 'not-her-password'));
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_credentials');
    expect(res.headers['www-authenticate']).toBe(CHALLENGE);
    expect(JSON.stringify(res.body)).not.toContain('not-her-password');
    expect(rig.logs()).not.toContain('not-her-password');
  });

  test('when the user has no privilege on the graph, then every call is 403 forbidden and nothing changes', async () => {
    const asBob = basic(BOB.name, BOB.password);
    const list = await http().get('/admin/secrets?graph=social').set('Authorization', asBob);
    const create = await http()
      .post('/admin/secrets')
      .set(CSRF)
      .set('Authorization', asBob)
      .send({ graph: 'social', alias: 'bobs' });
    const drop = await http().delete('/admin/secrets/bobs?graph=social').set(CSRF).set('Authorization', asBob);
    expect([list.status, create.status, drop.status]).toEqual([403, 403, 403]);
    expect([list.body.error.code, create.body.error.code, drop.body.error.code]).toEqual([
      'forbidden',
      'forbidden',
      'forbidden',
    ]);
    expect(await secretsOf(rig.sim, BOB)).toEqual([]);
  });

  test.each([
    ['list without a graph', () => supertest(rig.service.app).get('/admin/secrets')],
    ['list with a bad graph name', () => supertest(rig.service.app).get('/admin/secrets?graph=a;b')],
    ['create without a graph', () => supertest(rig.service.app).post('/admin/secrets').set(CSRF).send({ alias: 'x1' })],
    [
      'create with a bad alias',
      () => supertest(rig.service.app).post('/admin/secrets').set(CSRF).send({ graph: 'social', alias: 'no spaces' }),
    ],
    [
      'create with a body that is not an object',
      () => supertest(rig.service.app).post('/admin/secrets').set(CSRF).send([1]),
    ],
    ['drop without a graph', () => supertest(rig.service.app).delete('/admin/secrets/alice_known').set(CSRF)],
  ])(
    'when the caller sends %s, then it is 400 invalid_request and the admin server is not asked',
    async (_name, build) => {
      const before = rig.sim.seen().filter((r) => r.port === 'gsql').length;
      const res = await build().set('Authorization', asAlice);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(rig.sim.seen().filter((r) => r.port === 'gsql').length).toBe(before);
    },
  );

  test('when create or drop comes without the CSRF header or from a foreign origin, then it is 403 csrf_rejected and nothing changes', async () => {
    const before = await secretsOf(rig.sim, ALICE);
    const bare = await http()
      .post('/admin/secrets')
      .set('Authorization', asAlice)
      .send({ graph: 'social', alias: 'csrf_try' });
    const foreign = await http()
      .post('/admin/secrets')
      .set(CSRF)
      .set('Origin', 'https://evil.example')
      .set('Authorization', asAlice)
      .send({ graph: 'social', alias: 'csrf_try' });
    const drop = await http().delete('/admin/secrets/alice_known?graph=social').set('Authorization', asAlice);
    for (const res of [bare, foreign, drop]) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('csrf_rejected');
    }
    expect(await secretsOf(rig.sim, ALICE)).toEqual(before);
    const allowed = await http()
      .post('/admin/secrets')
      .set(CSRF)
      .set('Origin', 'https://app.example.com')
      .set('Authorization', asAlice)
      .send({ graph: 'social', alias: 'csrf_ok' });
    expect(allowed.status).toBe(201);
  });
});

describe('admin routes off, or the admin server down', () => {
  test('when ADMIN_ROUTES is not set, then /admin answers 404 not_found and the admin server is not asked', async () => {
    const rig = await startRig({ sim: SIM_USERS });
    try {
      const list = await supertest(rig.service.app).get('/admin/secrets?graph=social').set('Authorization', asAlice);
      const create = await supertest(rig.service.app)
        .post('/admin/secrets')
        .set(CSRF)
        .set('Authorization', asAlice)
        .send({ graph: 'social' });
      expect([list.status, create.status]).toEqual([404, 404]);
      expect([list.body.error.code, create.body.error.code]).toEqual(['not_found', 'not_found']);
      expect(rig.sim.seen().filter((r) => r.port === 'gsql')).toEqual([]);
    } finally {
      await rig.close();
    }
  });

  test('when the admin server is unreachable, then admin calls are 502 upstream_unavailable', async () => {
    const rig = await startRig({
      sim: SIM_USERS,
      gsqlUrl: `http://127.0.0.1:${await freePort()}`,
      env: { ADMIN_ROUTES: 'true' },
    });
    try {
      const res = await supertest(rig.service.app).get('/admin/secrets?graph=social').set('Authorization', asAlice);
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe('upstream_unavailable');
    } finally {
      await rig.close();
    }
  });
});
