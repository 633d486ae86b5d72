import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { TigerGraphConnection } from '../../../packages/client/src/connection.js';
import { wireEraOf } from '../../../packages/client/src/capabilities.js';
import { createClock, DEFAULT_LIFETIME_3X, expectKind, VERSIONS, type TestClock } from './fixtures.js';

const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();

describe.each(VERSIONS)('TigerGraphConnection token methods against the simulator in version %s', (version) => {
  const jwt = wireEraOf(version) === 'jwt';
  const triple = version === '3.4.0' || version === '3.5.0';
  let sim: SimulatorHandle;
  let conn: TigerGraphConnection;
  let clock: TestClock;
  let secret: string;

  beforeEach(async () => {
    clock = createClock();
    sim = await startSimulator({ version, now: clock.now });
    conn = new TigerGraphConnection({
      restppUrl: sim.restppUrl,
      gsqlUrl: sim.gsqlUrl,
      version,
      graphname: 'social',
      now: clock.now,
    });
    secret = sim.createSecret({ alias: 'app' }).value;
  });

  afterEach(async () => {
    await conn.close();
    await sim.close();
  });

  const echoAuth = () =>
    sim
      .seen()
      .filter((s) => s.path === '/echo')
      .map((s) => s.headers['authorization']);

  test(`when getToken is called with a secret, then it returns ${triple ? 'the (token, epoch, ISO) triple' : 'the token alone'}`, async () => {
    const result = await conn.getToken(secret, true, 3600);
    const token = sim.tokens()[0]?.token;
    const expiry = clock.nowSeconds() + 3600;
    if (triple) {
      expect(result).toEqual([token, expiry, iso(expiry)]);
      expect((result as readonly unknown[])[2]).toMatch(/Z$/);
    } else {
      expect(result).toBe(token);
    }
  });

  test('when getToken runs with setToken left true, then later data calls carry the token as Bearer', async () => {
    await expectKind(conn.echo(), 'invalid_credentials');
    await conn.getToken(secret);
    expect(await conn.echo()).toBe('Hello GSQL');
    const token = sim.tokens()[0]?.token;
    expect(conn.apiToken).toBe(token);
    expect(echoAuth()).toEqual([undefined, `Bearer ${token}`]);
  });

  test('when getToken runs with setToken false, then the connection keeps no token and data calls stay refused', async () => {
    await conn.getToken(secret, false);
    expect(conn.apiToken).toBeUndefined();
    const err = await expectKind(conn.echo(), 'invalid_credentials');
    expect([err.status, err.code]).toEqual([401, 'REST-10016']);
    expect(echoAuth()).toEqual([undefined]);
  });

  test('when a token is set, then getVersion, getVertices and runInstalledQuery answer with it', async () => {
    await conn.getToken(secret);
    expect(await conn.getVersion()).toBe(version);
    const people = await conn.getVertices('Person', { limit: 2 });
    expect(people).toHaveLength(2);
    expect(await conn.runInstalledQuery('hello', { name: 'Ada' })).toEqual([{ greeting: 'Hello, Ada!' }]);
    const graphPaths = sim.seen().filter((s) => s.path.startsWith('/graph/') || s.path.startsWith('/query/'));
    expect(graphPaths.map((s) => [s.path, s.query, s.auth])).toEqual([
      ['/graph/social/vertices/Person', 'limit=2', 'ok'],
      ['/query/social/hello', 'name=Ada', 'ok'],
    ]);
  });

  test('when getToken has no secret, then it logs in with user/password and the graph (3.5+) or refuses before 3.5', async () => {
    if (version === '3.4.0') {
      const err = await expectKind(conn.getToken(), 'bad_request');
      expect(err.message).toMatch(/username\/password for versions < 3\.5/);
      return;
    }
    await conn.getToken(undefined, true, 900);
    expect(await conn.echo()).toBe('Hello GSQL');
    expect(sim.tokens()[0]?.expiresAt).toBe(clock.nowSeconds() + 900);
  });

  test('when refreshToken is called later with no lifetime, then it returns the triple with expiry = now + 2,592,000', async () => {
    await conn.getToken(secret, true, 60);
    clock.advanceSeconds(30);
    const [token, expiresAt, isoExpiry] = await conn.refreshToken(secret);
    // 4.1 mints anew and has no refresh lifetime default of its own beyond the JWT default.
    const expected = clock.nowSeconds() + (jwt ? 604_800 : DEFAULT_LIFETIME_3X);
    expect([expiresAt, isoExpiry]).toEqual([expected, iso(expected)]);
    expect(conn.apiToken).toBe(token);
    expect(sim.tokens().find((t) => t.token === token)?.expiresAt).toBe(expected);
  });

  test('when refreshToken gets an explicit token and lifetime, then the new expiry counts from now, not from the old expiry', async () => {
    const first = await conn.getToken(secret, false, 1000);
    const token = typeof first === 'string' ? first : first[0];
    clock.advanceSeconds(600);
    const [, expiresAt] = await conn.refreshToken(secret, token, 100);
    expect(expiresAt).toBe(clock.nowSeconds() + 100);
  });

  test('when refreshToken has no token and none is set, then it says so without calling the server', async () => {
    await expectKind(conn.refreshToken(secret), 'bad_request');
    expect(sim.seen()).toHaveLength(0);
  });

  test('when deleteToken omits the token, then it deletes the current one, returns true and clears it', async () => {
    await conn.getToken(secret);
    const token = conn.apiToken;
    expect(await conn.deleteToken(secret)).toBe(true);
    expect(sim.tokens().map((t) => t.token)).not.toContain(token);
    expect(conn.apiToken).toBeUndefined();
  });

  test('when deleteToken names a token that does not exist, then skipNA true returns true and skipNA false raises', async () => {
    const missing = jwt ? 'eyJhbGciOiJIUzI1NiJ9.bm90.aXQ' : 'c'.repeat(32);
    expect(await conn.deleteToken(secret, missing)).toBe(true);
    expect(await conn.deleteToken(secret, missing, true)).toBe(true);
    await expectKind(conn.deleteToken(secret, missing, false), 'token_not_found');
  });

  test('when the secret is wrong, then getToken, refreshToken and deleteToken raise invalid_credentials (even with skipNA)', async () => {
    const wrong = 'nopenopenopenopenopenopenopenope';
    await conn.getToken(secret);
    const token = conn.apiToken as string;
    for (const call of [
      () => conn.getToken(wrong),
      () => conn.refreshToken(wrong, token),
      () => conn.deleteToken(wrong, token, true),
    ]) {
      const err = await expectKind(call(), 'invalid_credentials');
      expect(err.message).not.toContain(wrong);
      expect(err.message).not.toContain(token);
    }
    expect(conn.apiToken).toBe(token);
  });
});

describe.each(VERSIONS)('TigerGraphConnection when data-server auth is disabled (%s)', (version) => {
  let sim: SimulatorHandle;
  let conn: TigerGraphConnection;

  beforeAll(async () => {
    sim = await startSimulator({ version, authEnabled: false });
    conn = new TigerGraphConnection({ restppUrl: sim.restppUrl, gsqlUrl: sim.gsqlUrl, version, graphname: 'social' });
  });

  afterAll(async () => {
    await conn.close();
    await sim.close();
  });

  test('when a data call is made without a token, then it is answered', async () => {
    expect(await conn.echo()).toBe('Hello GSQL');
    expect(sim.seen().find((s) => s.path === '/echo')?.headers['authorization']).toBeUndefined();
  });

  // 4.1+ mints on the admin server (/gsql/v1/tokens), which RESTPP's auth switch does not gate, so
  // this row of the seed's error table is about /requesttoken, i.e. the 3.x eras.
  if (wireEraOf(version) !== 'jwt') {
    test('when getToken, refreshToken or deleteToken is called, then each raises auth_disabled', async () => {
      const secret = sim.createSecret().value;
      const token = 'd'.repeat(32);
      await expectKind(conn.getToken(secret), 'auth_disabled');
      await expectKind(conn.refreshToken(secret, token), 'auth_disabled');
      await expectKind(conn.deleteToken(secret, token), 'auth_disabled');
      // skipNA only forgives a missing token, never disabled authentication.
      await expectKind(conn.deleteToken(secret, token, true), 'auth_disabled');
      expect(conn.apiToken).toBeUndefined();
    });
  }
});

describe('TigerGraphConnection when the data server answers auth failures with 403', () => {
  test('when a data call carries no token, then it raises invalid_credentials with status 403', async () => {
    const sim = await startSimulator({ version: '3.9.3', authFailureStatus: 403 });
    const conn = new TigerGraphConnection({
      restppUrl: sim.restppUrl,
      gsqlUrl: sim.gsqlUrl,
      version: '3.9.3',
      graphname: 'social',
    });
    try {
      const err = await expectKind(conn.getVertices('Person'), 'invalid_credentials');
      expect([err.status, err.code]).toEqual([403, 'REST-10016']);
    } finally {
      await conn.close();
      await sim.close();
    }
  });
});
