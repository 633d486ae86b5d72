import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { basic, call, SIM_EPOCH } from './sim-http.js';
import { manualClock } from '../../helpers/clock.js';

describe('simulator /requesttoken, query-string era (3.4)', () => {
  const clock = manualClock(SIM_EPOCH);
  let sim: SimulatorHandle;
  let secret: string;
  let url: string;

  beforeAll(async () => {
    sim = await startSimulator({ version: '3.4.0', now: clock.now });
    secret = sim.createSecret({ alias: 'legacy' }).value;
    url = `${sim.restppUrl}/requesttoken`;
  });
  afterAll(() => sim.close());

  it('when GET carries secret and lifetime, then a token comes back without the 3.5 warning suffix', async () => {
    const res = await call(`${url}?secret=${secret}&lifetime=300`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      code: 'REST-0000',
      expiration: clock.nowSeconds() + 300,
      error: false,
      message: 'Generate new token successfully.',
      token: expect.stringMatching(/^[a-z0-9]{32}$/),
    });
  });

  it('when PUT and DELETE use the query string, then refresh is now + lifetime and delete drops it', async () => {
    const { json } = await call(`${url}?secret=${secret}`);
    clock.advance(120_000);
    const put = await call(`${url}?secret=${secret}&token=${json.token}&lifetime=900`, { method: 'PUT' });
    expect(put.json).toMatchObject({
      error: false,
      expiration: clock.nowSeconds() + 900,
      token: json.token,
      message: 'Refresh token successfully.',
    });
    const del = await call(`${url}?secret=${secret}&token=${json.token}`, { method: 'DELETE' });
    expect(del.json).toMatchObject({ error: false, expiration: -1, message: 'Drop token successfully.' });
    const again = await call(`${url}?secret=${secret}&token=${json.token}`, { method: 'DELETE' });
    expect(again.json).toMatchObject({ error: true, code: 'REST-3300' });
  });

  it('when POST carries the raw secret as its body (3.2 docs style), then a token comes back', async () => {
    const res = await call(`${url}?lifetime=50`, { method: 'POST', body: `${secret}\n` });
    expect(res.json).toMatchObject({ error: false, expiration: clock.nowSeconds() + 50 });
  });

  it('when GET uses Basic auth with a graph, then the token is nested in results', async () => {
    const res = await call(`${url}?graph=social`, { headers: { authorization: basic('tigergraph', 'tigergraph') } });
    expect(res.json.error).toBe(false);
    expect(res.json.results.token).toMatch(/^[a-z0-9]{32}$/);
  });

  it('when the secret is wrong, then HTTP 200 error:true', async () => {
    const res = await call(`${url}?secret=wrongwrongwrong`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ error: true, code: 'REST-10001' });
  });

  describe('strict: what 3.5+ clients send is refused as 3.4 would', () => {
    it('when POST carries a 3.5-style JSON body, then the JSON text is taken as the secret and refused (HTTP 200)', async () => {
      const before = sim.tokens().length;
      const res = await call(url, { method: 'POST', body: JSON.stringify({ secret, lifetime: '300' }) });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({
        error: true,
        code: 'REST-10001',
        message: 'Generate token failed, the secret is invalid.',
      });
      expect(res.text).not.toContain(secret);
      expect(sim.tokens()).toHaveLength(before);
    });

    it('when username/password is POSTed with {"graph": …} (3.5 style), then it is refused', async () => {
      const before = sim.tokens().length;
      const res = await call(url, {
        method: 'POST',
        body: '{"graph":"social"}',
        headers: { authorization: basic('tigergraph', 'tigergraph') },
      });
      expect(res.json).toMatchObject({ error: true, code: 'REST-10001' });
      const empty = await call(url, { method: 'POST', headers: { authorization: basic('tigergraph', 'tigergraph') } });
      expect(empty.json).toMatchObject({
        error: true,
        code: 'REST-1104',
        message: 'Generate token failed, a secret is required.',
      });
      expect(sim.tokens()).toHaveLength(before);
    });

    it('when PUT and DELETE carry JSON bodies instead of query strings, then the secret counts as missing', async () => {
      const { json } = await call(`${url}?secret=${secret}`);
      for (const method of ['PUT', 'DELETE']) {
        const res = await call(url, { method, body: JSON.stringify({ secret, token: json.token }) });
        expect(res.status).toBe(200);
        expect(res.json).toMatchObject({ error: true, code: 'REST-1104' });
        const withBasic = await call(`${url}?token=${json.token}`, {
          method,
          headers: { authorization: basic('tigergraph', 'tigergraph') },
        });
        expect(withBasic.json).toMatchObject({ error: true, code: 'REST-1104' });
      }
      expect(sim.tokens().map((t) => t.token)).toContain(json.token);
      await call(`${url}?secret=${secret}&token=${json.token}`, { method: 'DELETE' });
    });

    it('when GET carries a JSON body but no query string, then the body is not read', async () => {
      const res = await call(url, { method: 'GET', body: JSON.stringify({ secret }) });
      expect(res.json).toMatchObject({ error: true });
    });
  });
});
