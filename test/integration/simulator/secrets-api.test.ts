import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { basic, bearer, call } from './sim-http.js';

describe('simulator 4.1 REST secrets API', () => {
  let sim: SimulatorHandle;
  const admin = { authorization: basic('tigergraph', 'tigergraph') };
  const carol = { authorization: basic('carol', 'carol-pw') };
  let url: string;

  beforeAll(async () => {
    sim = await startSimulator({
      version: '4.1.0',
      users: [{ name: 'carol', password: 'carol-pw', graphs: ['social'] }],
    });
    url = `${sim.gsqlUrl}/gsql/v1/secrets`;
  });
  afterAll(() => sim.close());

  it('when a secret is created with alias and value in the query, then results echo them', async () => {
    const res = await call(`${url}?alias=s1&value=59ccqdlqmkfcqjl99u2jv4qt2telmeoj`, {
      method: 'POST',
      headers: admin,
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      error: false,
      message: '',
      results: { alias: 's1', value: '59ccqdlqmkfcqjl99u2jv4qt2telmeoj' },
    });
  });

  it('when a secret is created without a value, then a 32-char value and generated alias come back', async () => {
    const res = await call(url, { method: 'POST', headers: admin });
    expect(res.json.results.alias).toMatch(/^AUTO_GENERATED_ALIAS_[a-z0-9]{7}$/);
    expect(res.json.results.value).toMatch(/^[a-z0-9]{32}$/);
  });

  it('when the alias exists, then error:true', async () => {
    const res = await call(`${url}?alias=s1`, { method: 'POST', headers: admin });
    expect(res.status).toBe(409);
    expect(res.json.error).toBe(true);
  });

  it('when secrets are listed and read by alias, then plaintext values come back', async () => {
    const list = await call(url, { headers: admin });
    expect(list.json.results).toEqual(
      expect.arrayContaining([{ alias: 's1', value: '59ccqdlqmkfcqjl99u2jv4qt2telmeoj' }]),
    );
    const one = await call(`${url}/s1`, { headers: admin });
    expect(one.json.results).toEqual({ alias: 's1', value: '59ccqdlqmkfcqjl99u2jv4qt2telmeoj' });
    const missing = await call(`${url}/nope`, { headers: admin });
    expect(missing.status).toBe(404);
  });

  it('when a superuser creates for another user, then it is theirs; a normal user may not act for others', async () => {
    const res = await call(`${url}?alias=for_carol&userName=carol`, { method: 'POST', headers: admin });
    expect(res.json.error).toBe(false);
    const mine = await call(url, { headers: carol });
    expect(mine.json.results.map((s: { alias: string }) => s.alias)).toEqual(['for_carol']);
    const denied = await call(`${url}?userName=tigergraph`, { headers: carol });
    expect(denied.status).toBe(403);
  });

  it('when secrets are deleted by body and by path, then tokens minted with them stop working', async () => {
    const created = await call(`${url}?alias=temp1`, { method: 'POST', headers: admin });
    await call(`${url}?alias=temp2`, { method: 'POST', headers: admin });
    const tok = await call(`${sim.gsqlUrl}/gsql/v1/tokens`, {
      method: 'POST',
      body: JSON.stringify({ secret: created.json.results.value }),
    });
    expect((await call(`${sim.restppUrl}/echo`, { headers: { authorization: bearer(tok.json.token) } })).status).toBe(
      200,
    );
    const del = await call(url, { method: 'DELETE', body: '{"secrets":["temp1"]}', headers: admin });
    expect(del.json).toEqual({ error: false, message: 'Successfully removed the secrets for user tigergraph.' });
    expect((await call(`${sim.restppUrl}/echo`, { headers: { authorization: bearer(tok.json.token) } })).status).toBe(
      401,
    );
    const byPath = await call(`${url}/temp2`, { method: 'DELETE', headers: admin });
    expect(byPath.json.error).toBe(false);
    const again = await call(`${url}/temp2`, { method: 'DELETE', headers: admin });
    expect(again.json.error).toBe(true);
  });

  it('when no or wrong credentials are sent, then 401', async () => {
    expect((await call(url)).status).toBe(401);
    expect((await call(url, { headers: { authorization: basic('carol', 'x') } })).status).toBe(401);
  });

  it('when a GSQL-issued JWT is the credential, then the secrets API accepts it', async () => {
    const tok = await call(`${sim.gsqlUrl}/gsql/v1/tokens`, { method: 'POST', body: '{}', headers: carol });
    const res = await call(url, { headers: { authorization: bearer(tok.json.token) } });
    expect(res.status).toBe(200);
    expect(res.json.results.map((s: { alias: string }) => s.alias)).toContain('for_carol');
  });
});
