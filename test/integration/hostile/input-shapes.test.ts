import supertest from 'supertest';
import { CSRF, startRig, type Rig } from '../../helpers/app-rig.js';
import { ALICE, basic, SIM_USERS } from '../admin/admin-harness.js';

// docs/architecture.md, "The hostile-user model": whatever shape a client sends to a JSON route, it gets a 4xx JSON answer naming the
// problem, TigerGraph is not asked, and the service keeps serving.

const asAlice = basic(ALICE.name, ALICE.password);
// Raw text: JSON.stringify itself overflows the stack on values this deep.
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const notUtf8 = (json: string) =>
  Buffer.concat([
    Buffer.from(json.slice(0, json.indexOf('§'))),
    Buffer.from([0xff, 0xfe]),
    Buffer.from(json.slice(json.indexOf('§') + 1)),
  ]);

type Res = supertest.Response;

/** A refusal is exactly `{"error":{code,message}}`, and the message is ours: no zod report, no stack. */
function expectRefused(res: Res, status: number, code: string, message: string | RegExp): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(res.body)).toEqual(['error']);
  expect(res.body.error.code).toBe(code);
  expect(res.body.error.message).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
  expect(res.body.error.message).not.toMatch(/\n|expected|invalid_type|ZodError|at \//);
}

describe('hostile input shapes on the JSON routes (login, password login, admin)', () => {
  let rig: Rig;
  let upstreamBefore = 0;
  const http = () => supertest(rig.service.app);
  const login = () => http().post('/auth/login').set(CSRF).set('X-Forwarded-For', '10.7.0.1');
  const create = () => http().post('/admin/secrets').set(CSRF).set('Authorization', asAlice);

  beforeAll(async () => {
    rig = await startRig({
      sim: SIM_USERS,
      env: {
        PASSWORD_LOGIN: 'true',
        ADMIN_ROUTES: 'true',
        LOGIN_RATE_LIMIT: '1000',
        LOGIN_USER_LIMIT: '1000',
        TRUST_PROXY: 'true',
      },
    });
  });
  beforeEach(() => {
    upstreamBefore = rig.sim.seen().length;
  });
  afterEach(() => {
    // Every refusal here is decided before anything reaches TigerGraph.
    expect(rig.sim.seen().length).toBe(upstreamBefore);
  });
  afterAll(() => rig.close());

  test.each([
    ['a secret that is a number', { secret: 42 }, 'secret: must be a string'],
    ['a secret that is an object', { secret: { $ne: '' } }, 'secret: must be a string'],
    ['no secret', { graph: 'social' }, 'secret: is required'],
    ['a graph that is a number', { secret: 'abc', graph: 7 }, /^graph: must be a graph name/],
    ['a graph with a path in it', { secret: 'abc', graph: '../x' }, /^graph: must be a graph name/],
    [
      'a username that is an array',
      { username: ['alice'], password: 'x', graph: 'social' },
      'username: must be a string',
    ],
    [
      'a password that is a boolean',
      { username: 'alice', password: true, graph: 'social' },
      'password: must be a string',
    ],
  ])('when a login body has %s, then it is 400 invalid_request naming the field', async (_name, body, message) => {
    expectRefused(await login().send(body), 400, 'invalid_request', message);
  });

  test.each([
    ['a secret login', { secret: 'abc', graph: 'social', remember: true }, 'remember: is not a known field'],
    [
      'a password login',
      { username: 'alice', password: 'x', graph: 'social', role: 'superuser' },
      'role: is not a known field',
    ],
    [
      'a key that is not a plain name',
      { secret: 'abc', 'a b\u0000<script>': 1 },
      'body: has a field that is not known',
    ],
  ])(
    'when %s carries a field the service does not know, then it is refused by name rather than ignored',
    async (_name, body, message) => {
      expectRefused(await login().send(body), 400, 'invalid_request', message);
    },
  );

  test('when a secret login with a valid secret carries an unknown field, then it is refused and no token is minted', async () => {
    expectRefused(
      await login().send({ secret: rig.secret, graph: 'social', admin: true }),
      400,
      'invalid_request',
      'admin: is not a known field',
    );
  });

  test('when a create-secret body asks for a value of its own, then it is refused instead of silently making another one', async () => {
    expectRefused(
      await create().send({ graph: 'social', alias: 'chosen', value: 'mine' }),
      400,
      'invalid_request',
      'value: is not a known field',
    );
  });

  test.each([
    ['a secret over 512 characters', { secret: 's'.repeat(513) }, 'secret: must be at most 512 characters'],
    [
      'a username over 128 characters',
      { username: 'u'.repeat(129), password: 'x', graph: 'social' },
      'username: must be at most 128 characters',
    ],
    ['a graph name over 128 characters', { secret: 'abc', graph: 'g'.repeat(129) }, /^graph: must be a graph name/],
  ])('when a login body has %s, then it is 400 naming the field', async (_name, body, message) => {
    expectRefused(await login().send(body), 400, 'invalid_request', message);
  });

  test('when a login body is larger than 16 KiB, then it is 413 payload_too_large', async () => {
    expectRefused(
      await login().send({ secret: 's'.repeat(20_000) }),
      413,
      'payload_too_large',
      'Request body is too large',
    );
  });

  test('when a field is nested thousands of levels deep, then it is 400 naming the field, not a crash', async () => {
    const json = (raw: string) => (req: supertest.Test) => req.set('Content-Type', 'application/json').send(raw);
    expectRefused(
      await json(`{"secret":${nested(5000)}}`)(login()),
      400,
      'invalid_request',
      'secret: must be a string',
    );
    expectRefused(
      await json(`{"secret":"abc","extra":${nested(5000)}}`)(login()),
      400,
      'invalid_request',
      'extra: is not a known field',
    );
    expectRefused(
      await json(`{"graph":"social","alias":${nested(5000)}}`)(create()),
      400,
      'invalid_request',
      /^alias: must be a secret alias/,
    );
  });

  test.each([
    ['an array', [{ secret: 'abc' }]],
    ['JSON null', null],
    ['a JSON string', 'abc'],
    ['a JSON number', 12],
  ])('when the body is %s instead of an object, then it is 400 "body: must be a JSON object"', async (_name, value) => {
    const raw = JSON.stringify(value);
    expectRefused(
      await login().set('Content-Type', 'application/json').send(raw),
      400,
      'invalid_request',
      'body: must be a JSON object',
    );
    expectRefused(
      await create().set('Content-Type', 'application/json').send(raw),
      400,
      'invalid_request',
      'body: must be a JSON object',
    );
  });

  test('when the body is empty, then it says what is missing', async () => {
    expectRefused(await login(), 400, 'invalid_request', 'body: is required');
    expectRefused(
      await login().set('Content-Type', 'application/json').send(''),
      400,
      'invalid_request',
      'secret: is required',
    );
  });

  test.each([
    ['text/plain', '{"secret":"abc"}'],
    ['application/x-www-form-urlencoded', 'secret=abc&graph=social'],
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="secret"\r\n\r\nabc\r\n--x--\r\n'],
  ])('when a body is sent as %s, then it is 415 unsupported_media_type naming the content type', async (type, raw) => {
    const message = 'body: Content-Type must be application/json';
    expectRefused(await login().set('Content-Type', type).send(raw), 415, 'unsupported_media_type', message);
    expectRefused(await create().set('Content-Type', type).send(raw), 415, 'unsupported_media_type', message);
  });

  test('when a body is not valid UTF-8, then it is 400 saying so, and the mangled value is not tried as a secret', async () => {
    // superagent would serialize a Buffer as JSON ({"type":"Buffer",…}); these bytes go out as they are.
    const raw = (req: supertest.Test, bytes: Buffer) =>
      req
        .set('Content-Type', 'application/json')
        .serialize((b: Buffer) => b as unknown as string)
        .send(bytes);
    const res = await raw(login(), notUtf8('{"secret":"abc§def","graph":"social"}'));
    expectRefused(res, 400, 'invalid_request', 'body: is not valid UTF-8');
    const admin = await raw(create(), notUtf8('{"graph":"social","alias":"a§"}'));
    expectRefused(admin, 400, 'invalid_request', 'body: is not valid UTF-8');
  });

  test.each([
    ['a repeated graph', '/admin/secrets?graph=social&graph=social', /^graph: must be a graph name/],
    ['a parameter it does not read', '/admin/secrets?graph=social&all=true', 'all: is not a known field'],
    ['a graph with GSQL in it', '/admin/secrets?graph=social%0ADROP%20ALL', /^graph: must be a graph name/],
  ])('when the secret list query has %s, then it is 400 naming the parameter', async (_name, url, message) => {
    expectRefused(await http().get(url).set('Authorization', asAlice), 400, 'invalid_request', message);
  });

  test.each([
    [
      'an alias over 128 characters',
      `/admin/secrets/${'a'.repeat(129)}?graph=social`,
      /^alias: must be a secret alias/,
    ],
    ['an alias with GSQL in it', '/admin/secrets/x%3BDROP%20ALL?graph=social', /^alias: must be a secret alias/],
    ['a broken percent-encoding', '/admin/secrets/%ZZ?graph=social', /./],
  ])('when a drop names %s, then it is 400 and nothing is dropped', async (_name, url, message) => {
    expectRefused(await http().delete(url).set(CSRF).set('Authorization', asAlice), 400, 'invalid_request', message);
  });

  test('when all of that has been sent, then the service still logs a real user in', async () => {
    const res = await login().send({ secret: rig.secret, graph: 'social' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ authenticated: true, graph: 'social' });
    upstreamBefore = rig.sim.seen().length;
  });
});
