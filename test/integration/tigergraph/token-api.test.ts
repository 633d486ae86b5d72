import { request } from 'undici';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { createTokenApi, type TokenClient } from '../../../packages/client/src/restpp-client.js';
import { wireEraOf } from '../../../packages/client/src/capabilities.js';
import {
  createClock,
  DEFAULT_LIFETIME_3X,
  DEFAULT_LIFETIME_JWT,
  expectKind,
  VERSIONS,
  type TestClock,
} from './fixtures.js';

describe.each(VERSIONS)('createTokenApi against the simulator in version %s', (version) => {
  const jwt = wireEraOf(version) === 'jwt';
  let sim: SimulatorHandle;
  let api: TokenClient;
  let clock: TestClock;
  let secret: string;

  beforeEach(async () => {
    clock = createClock();
    sim = await startSimulator({ version, now: clock.now });
    api = createTokenApi({ restppUrl: sim.restppUrl, gsqlUrl: sim.gsqlUrl, version, now: clock.now, timeoutMs: 5000 });
    secret = sim.createSecret({ alias: 'app' }).value;
  });

  afterEach(async () => {
    await api.close();
    await sim.close();
  });

  const tokenCalls = () => sim.seen().filter((s) => s.path === '/requesttoken' || s.path === '/gsql/v1/tokens');

  test('when a token is requested without a lifetime, then expiry is now + the server default and the server holds it', async () => {
    const grant = await api.requestToken(secret);
    const expected = clock.nowSeconds() + (jwt ? DEFAULT_LIFETIME_JWT : DEFAULT_LIFETIME_3X);
    expect(grant.expiresAt).toBe(expected);
    expect(sim.tokens()).toEqual([{ token: grant.token, expiresAt: expected, secretAlias: 'app' }]);
  });

  test('when a token is requested, then the wire shape is the one of its era', async () => {
    await api.requestToken(secret, 3600);
    const [seen] = tokenCalls();
    if (version === '3.4.0') {
      expect([seen?.port, seen?.method, seen?.path]).toEqual(['restpp', 'GET', '/requesttoken']);
      expect(new URLSearchParams(seen?.query).get('secret')).toBe(secret);
      expect(new URLSearchParams(seen?.query).get('lifetime')).toBe('3600');
    } else if (jwt) {
      expect([seen?.port, seen?.method, seen?.path, seen?.query]).toEqual(['gsql', 'POST', '/gsql/v1/tokens', '']);
      expect(JSON.parse(seen?.bodyText ?? '')).toEqual({ secret, lifetime: '3600' });
    } else {
      expect([seen?.port, seen?.method, seen?.path, seen?.query]).toEqual(['restpp', 'POST', '/requesttoken', '']);
      expect(JSON.parse(seen?.bodyText ?? '')).toEqual({ secret, lifetime: '3600' });
    }
  });

  test('when a token is refreshed later, then the new expiry is refresh time + lifetime, not old expiry + lifetime', async () => {
    const first = await api.requestToken(secret, 1000);
    clock.advanceSeconds(400);
    const refreshed = await api.refreshToken(secret, first.token, 5000);
    expect(refreshed.expiresAt).toBe(clock.nowSeconds() + 5000);
    const live = sim.tokens().find((t) => t.token === refreshed.token);
    expect(live?.expiresAt).toBe(clock.nowSeconds() + 5000);
    // 3.x extends the same token with PUT; 4.1 has no refresh on the wire and mints a new one.
    expect(refreshed.token === first.token).toBe(!jwt);
    expect(sim.counts()[jwt ? 'POST /gsql/v1/tokens' : 'PUT /requesttoken']).toBe(jwt ? 2 : 1);
  });

  test('when a token is deleted, then the server no longer holds it and a data call with it is refused', async () => {
    const grant = await api.requestToken(secret);
    await api.deleteToken(secret, grant.token);
    expect(sim.tokens().map((t) => t.token)).not.toContain(grant.token);
    const echo = await request(`${sim.restppUrl}/echo`, { headers: { authorization: `Bearer ${grant.token}` } });
    await echo.body.dump();
    expect(echo.statusCode).toBe(401);
    expect(sim.counts()[jwt ? 'DELETE /gsql/v1/tokens' : 'DELETE /requesttoken']).toBe(1);
    if (jwt) {
      const drop = sim.seen().find((s) => s.method === 'DELETE');
      const basic = Buffer.from(String(drop?.headers['authorization']).slice(6), 'base64').toString();
      expect(basic).toBe(`__GSQL__secret:${secret}`);
    }
  });

  test('when a token that never existed is deleted, then the error kind is token_not_found', async () => {
    const missing = jwt ? 'eyJhbGciOiJIUzI1NiJ9.bm90.aXQ' : 'a'.repeat(32);
    const err = await expectKind(api.deleteToken(secret, missing), 'token_not_found');
    if (!jwt) expect(err.code).toBe('REST-3300');
  });

  test('when the secret is wrong, then every call fails as invalid_credentials and the secret is masked', async () => {
    const wrong = 'wrongsecretwrongsecretwrongsecre';
    const grant = await api.requestToken(secret);
    for (const attempt of [() => api.requestToken(wrong), () => api.refreshToken(wrong, grant.token)]) {
      const err = await expectKind(attempt(), 'invalid_credentials');
      expect(err.message).not.toContain(wrong);
    }
    const del = await expectKind(api.deleteToken(wrong, grant.token), 'invalid_credentials');
    expect(del.message).not.toContain(wrong);
    expect(del.message).not.toContain(grant.token);
  });

  test('when the lifetime is not a positive whole number, then it is refused before any call', async () => {
    await expectKind(api.requestToken(secret, -5), 'bad_request');
    await expectKind(api.requestToken(secret, 1.5), 'bad_request');
    expect(tokenCalls()).toHaveLength(0);
  });

  test('when a user/password token is requested for a graph, then it works on 3.5+ and is refused clearly before 3.5', async () => {
    const login = api.requestTokenWithPassword({ username: 'tigergraph', password: 'tigergraph' }, 'social', 600);
    if (version === '3.4.0') {
      const err = await expectKind(login, 'bad_request');
      expect(err.message).toMatch(/versions < 3\.5/);
      expect(tokenCalls()).toHaveLength(0);
    } else {
      const grant = await login;
      expect(grant.expiresAt).toBe(clock.nowSeconds() + 600);
      const seen = tokenCalls()[0];
      expect(JSON.parse(seen?.bodyText ?? '')).toEqual({ graph: 'social', lifetime: '600' });
      expect(seen?.headers['authorization']).toBe(`Basic ${Buffer.from('tigergraph:tigergraph').toString('base64')}`);
    }
  });
});

describe.each(['3.4.0', '3.5.0', '3.9.3'])('createTokenApi when data-server auth is disabled (%s)', (version) => {
  let sim: SimulatorHandle;
  let api: TokenClient;

  beforeAll(async () => {
    sim = await startSimulator({ version, authEnabled: false });
    api = createTokenApi({ restppUrl: sim.restppUrl, gsqlUrl: sim.gsqlUrl, version });
  });

  afterAll(async () => {
    await api.close();
    await sim.close();
  });

  test('when a token is requested, refreshed or deleted, then each fails as auth_disabled with HTTP 404', async () => {
    const secret = sim.createSecret().value;
    const token = 'b'.repeat(32);
    const request = await expectKind(api.requestToken(secret), 'auth_disabled');
    const refresh = await expectKind(api.refreshToken(secret, token), 'auth_disabled');
    const remove = await expectKind(api.deleteToken(secret, token), 'auth_disabled');
    expect(request.message).toBe("REST++ authentication is not enabled, can't generate token.");
    expect(refresh.message).toBe("REST++ authentication is not enabled, can't refresh token.");
    expect(remove.message).toBe("REST++ authentication is not enabled, can't delete token.");
    expect([request.status, request.code]).toEqual([404, 'REST-1000']);
  });
});
