import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { basic, bearer, call } from './sim-http.js';
import { manualClock } from '../../helpers/clock.js';

const decodePart = (jwt: string, i: number) =>
  JSON.parse(Buffer.from(jwt.split('.')[i]!, 'base64url').toString('utf8'));

describe('simulator 4.1+ tokens (/gsql/v1/tokens, JWT)', () => {
  const clock = manualClock(Date.UTC(2024, 6, 3, 6, 12, 47));
  let sim: SimulatorHandle;
  let secret: string;
  let tokensUrl: string;

  beforeAll(async () => {
    sim = await startSimulator({
      version: '4.1.0',
      now: clock.now,
      graphs: ['other'],
      users: [{ name: 'bob', password: 'bob-pw', graphs: ['social'] }],
    });
    secret = sim.createSecret({ alias: 's1' }).value;
    tokensUrl = `${sim.gsqlUrl}/gsql/v1/tokens`;
  });
  afterAll(() => sim.close());

  it('when the simulator starts, then the data URL is the gsql port with /restpp', () => {
    expect(sim.restppUrl).toBe(`http://127.0.0.1:${sim.gsqlPort}/restpp`);
    expect(sim.gsqlUrl).toBe(`http://127.0.0.1:${sim.gsqlPort}`);
  });

  it('when a secret asks for a token, then an HS256 JWT comes back with a Java-style UTC expiry 7 days out', async () => {
    const res = await call(tokensUrl, { method: 'POST', body: JSON.stringify({ secret }) });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      expiration: 'Wed Jul 10 06:12:47 UTC 2024',
      error: false,
      message: 'Generate new JWT token successfully.',
      token: expect.any(String),
    });
    expect(decodePart(res.json.token, 0)).toEqual({ alg: 'HS256' });
    const claims = decodePart(res.json.token, 1);
    expect(claims).toMatchObject({ sub: 'tigergraph', iss: 'TigerGraph', iat: clock.nowSeconds() });
    expect(claims.exp - claims.iat).toBe(7 * 86_400);
  });

  it('when the lifetime is at least 1e8, then it is milliseconds; smaller is seconds', async () => {
    const ms = await call(tokensUrl, { method: 'POST', body: JSON.stringify({ secret, lifetime: '100000000' }) });
    expect(decodePart(ms.json.token, 1).exp - clock.nowSeconds()).toBe(100_000);
    const s = await call(tokensUrl, { method: 'POST', body: JSON.stringify({ secret, lifetime: 3600 }) });
    expect(decodePart(s.json.token, 1).exp - clock.nowSeconds()).toBe(3600);
  });

  it('when Basic auth asks for a graph token, then the JWT carries the graph; a foreign graph is 400', async () => {
    const ok = await call(tokensUrl, {
      method: 'POST',
      body: '{"graph":"social"}',
      headers: { authorization: basic('bob', 'bob-pw') },
    });
    expect(decodePart(ok.json.token, 1)).toMatchObject({ sub: 'bob', graph: 'social' });
    const foreign = await call(tokensUrl, {
      method: 'POST',
      body: '{"graph":"other"}',
      headers: { authorization: basic('bob', 'bob-pw') },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.json.error).toBe(true);
  });

  it('when the secret or password is wrong, then 401 error:true', async () => {
    const bad = await call(tokensUrl, { method: 'POST', body: JSON.stringify({ secret: 'nope' }) });
    expect(bad.status).toBe(401);
    expect(bad.json.error).toBe(true);
    const badPw = await call(tokensUrl, { method: 'POST', body: '{}', headers: { authorization: basic('bob', 'x') } });
    expect(badPw.status).toBe(401);
    const none = await call(tokensUrl, { method: 'POST', body: '{}' });
    expect(none.status).toBe(401);
  });

  it('when the token is used on /restpp data endpoints, then it works; after DELETE by __GSQL__secret it is refused', async () => {
    const { json } = await call(tokensUrl, { method: 'POST', body: JSON.stringify({ secret }) });
    const before = await call(`${sim.restppUrl}/echo`, { headers: { authorization: bearer(json.token) } });
    expect(before.status).toBe(200);
    const del = await call(tokensUrl, {
      method: 'DELETE',
      body: JSON.stringify({ tokens: `${json.token}` }),
      headers: { authorization: basic('__GSQL__secret', secret) },
    });
    expect(del.json).toEqual({ error: false, message: 'Successfully dropped the specified JWT tokens' });
    const after = await call(`${sim.restppUrl}/echo`, { headers: { authorization: bearer(json.token) } });
    expect(after.status).toBe(401);
    expect(after.json.code).toBe('REST-10016');
  });

  it("when a non-superuser drops another user's JWT or a non-JWT, then it is refused; without login 401", async () => {
    const { json } = await call(tokensUrl, { method: 'POST', body: JSON.stringify({ secret }) });
    const foreign = await call(tokensUrl, {
      method: 'DELETE',
      body: JSON.stringify({ tokens: json.token }),
      headers: { authorization: basic('bob', 'bob-pw') },
    });
    expect(foreign.status).toBe(403);
    const junk = await call(tokensUrl, {
      method: 'DELETE',
      body: '{"tokens":"abc.def.ghi"}',
      headers: { authorization: basic('bob', 'bob-pw') },
    });
    expect(junk.status).toBe(400);
    const anon = await call(tokensUrl, { method: 'DELETE', body: JSON.stringify({ tokens: json.token }) });
    expect(anon.status).toBe(401);
    expect(sim.tokens().some((t) => t.token === json.token)).toBe(true);
  });

  it('when /restpp/requesttoken is used on 4.1 with a password, then the token is at the top level', async () => {
    const res = await call(`${sim.restppUrl}/requesttoken`, {
      method: 'POST',
      body: '{"graph":"social"}',
      headers: { authorization: basic('tigergraph', 'tigergraph') },
    });
    expect(res.json).toMatchObject({ error: false, code: 'REST-0000' });
    expect(res.json.results).toBeUndefined();
    expect(decodePart(res.json.token, 1).sub).toBe('tigergraph');
  });

  it('when a token is checked, then a live one verifies and a dropped one does not', async () => {
    const { json } = await call(tokensUrl, { method: 'POST', body: JSON.stringify({ secret }) });
    const ok = await call(`${tokensUrl}/check`, { method: 'POST', body: JSON.stringify({ token: json.token }) });
    expect(ok.json.error).toBe(false);
    expect(ok.text).not.toContain(json.token);
    sim.revokeToken(json.token);
    const gone = await call(`${tokensUrl}/check`, { method: 'POST', body: JSON.stringify({ token: json.token }) });
    expect(gone.json.error).toBe(true);
  });
});

describe('simulator 4.1+ GSQL-issued JWTs beside external JWT verification', () => {
  const HMAC = 'external-idp-shared-secret-0123456789';
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startSimulator({ version: '4.1.2', jwt: { hmacSecret: HMAC, audience: 'bff' } });
  });
  afterAll(() => sim.close());

  const mintOwn = async () =>
    (
      await call(`${sim.gsqlUrl}/gsql/v1/tokens`, {
        method: 'POST',
        body: JSON.stringify({ secret: sim.createSecret().value }),
      })
    ).json.token as string;

  it('when a /gsql/v1/tokens JWT is used, then it works on RESTPP and on GSQL endpoints (statements, secrets), as without jwt', async () => {
    const token = await mintOwn();
    expect(
      (await call(`${sim.restppUrl}/graph/social/vertices/Person`, { headers: { authorization: bearer(token) } }))
        .status,
    ).toBe(200);
    const statements = await call(`${sim.gsqlUrl}/gsql/v1/statements`, {
      method: 'POST',
      body: 'SHOW SECRET',
      headers: { authorization: bearer(token) },
    });
    expect(statements.status).toBe(200);
    const secrets = await call(`${sim.gsqlUrl}/gsql/v1/secrets`, { headers: { authorization: bearer(token) } });
    expect(secrets.status).toBe(200);
  });

  it('when a GSQL-issued JWT is revoked, then RESTPP answers "is invalid." as before, not an external-JWT reason', async () => {
    const token = await mintOwn();
    sim.revokeToken(token);
    const res = await call(`${sim.restppUrl}/echo`, { headers: { authorization: bearer(token) } });
    expect(res.status).toBe(401);
    expect(res.json.message).toMatch(/is invalid\.$/);
    const gsql = await call(`${sim.gsqlUrl}/gsql/v1/statements`, {
      method: 'POST',
      body: 'SHOW SECRET',
      headers: { authorization: bearer(token) },
    });
    expect(gsql.status).toBe(401);
  });
});

describe('simulator before 4.1', () => {
  it('when /gsql/v1/tokens is called on 4.0, then it is 404 (clients detect the era by it)', async () => {
    const sim = await startSimulator({ version: '4.0.0' });
    try {
      const res = await call(`${sim.gsqlUrl}/gsql/v1/tokens`, {
        method: 'POST',
        body: JSON.stringify({ secret: sim.createSecret().value }),
      });
      expect(res.status).toBe(404);
      expect(sim.counts()['POST /gsql/v1/tokens']).toBe(1);
    } finally {
      await sim.close();
    }
  });
});
