import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { basic, call, SIM_EPOCH } from './sim-http.js';
import { manualClock } from '../../helpers/clock.js';

const WARNING_START = '\nWarning: Tigergraph Support cannot restore access';

describe('simulator /requesttoken, JSON era (3.5–4.0)', () => {
  const clock = manualClock(SIM_EPOCH);
  let sim: SimulatorHandle;
  let secret: string;
  let url: string;

  beforeAll(async () => {
    sim = await startSimulator({
      version: '3.9.3',
      now: clock.now,
      users: [{ name: 'alice', password: 'alice-pw', graphs: ['social'] }],
    });
    secret = sim.createSecret({ alias: 'main' }).value;
    url = `${sim.restppUrl}/requesttoken`;
  });
  afterAll(() => sim.close());

  it('when a secret is POSTed as JSON, then a 32-char token comes back at top level with an epoch expiry', async () => {
    const res = await call(url, { method: 'POST', body: JSON.stringify({ secret, lifetime: '1000' }) });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ code: 'REST-0000', error: false, expiration: clock.nowSeconds() + 1000 });
    expect(res.json.token).toMatch(/^[a-z0-9]{32}$/);
    expect(res.json.message.startsWith(`Generate new token successfully.${WARNING_START}`)).toBe(true);
    expect(sim.tokens()).toContainEqual({
      token: res.json.token,
      expiresAt: clock.nowSeconds() + 1000,
      secretAlias: 'main',
    });
  });

  it('when no lifetime is given, then the token lives 2,592,000 seconds', async () => {
    const res = await call(url, { method: 'POST', body: JSON.stringify({ secret }) });
    expect(res.json.expiration).toBe(clock.nowSeconds() + 2_592_000);
  });

  it('when the body is single-quoted pseudo-JSON sent as a form with a numeric lifetime, then it is still accepted', async () => {
    const res = await call(url, {
      method: 'POST',
      body: `{'secret': '${secret}', 'lifetime': 60}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.json).toMatchObject({ error: false, expiration: clock.nowSeconds() + 60 });
  });

  it('when a stray Authorization header comes with a secret, then the secret decides', async () => {
    const res = await call(url, {
      method: 'POST',
      body: JSON.stringify({ secret }),
      headers: { authorization: basic('tigergraph', 'wrong') },
    });
    expect(res.json.error).toBe(false);
  });

  it('when the secret is unknown, then HTTP 200 carries error:true with a code and message', async () => {
    const res = await call(url, {
      method: 'POST',
      body: JSON.stringify({ secret: 'nosuchsecretnosuchsecret00000000' }),
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ error: true, code: 'REST-10001' });
    expect(res.json.message).toMatch(/^Generate token failed, /);
  });

  it('when the lifetime is not a number, then the answer is error:true REST-1104', async () => {
    const res = await call(url, { method: 'POST', body: JSON.stringify({ secret, lifetime: 'soon' }) });
    expect(res.json).toMatchObject({ error: true, code: 'REST-1104' });
  });

  it('when credentials come in the query string, then REST-1101 says a JSON payload was expected', async () => {
    const res = await call(`${url}?secret=${secret}&lifetime=100`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ error: true, code: 'REST-1101' });
    expect(res.json.message).toMatch(
      /^The request cannot be processed: expected a JSON payload, but a query string was given\.\n/,
    );
    const put = await call(`${url}?secret=${secret}&token=x`, { method: 'PUT' });
    expect(put.json.code).toBe('REST-1101');
  });

  it('when GET /requesttoken is used, then it is not found (404 REST-1000)', async () => {
    const res = await call(`${url}?secret=${secret}`);
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ error: true, code: 'REST-1000' });
  });

  it('when a user/password asks with a graph, then the token is nested in results', async () => {
    const res = await call(url, {
      method: 'POST',
      body: JSON.stringify({ graph: 'social' }),
      headers: { authorization: basic('alice', 'alice-pw') },
    });
    expect(res.json).toMatchObject({ code: 'REST-0000', error: false, expiration: clock.nowSeconds() + 2_592_000 });
    expect(res.json.token).toBeUndefined();
    expect(res.json.results.token).toMatch(/^[a-z0-9]{32}$/);
  });

  it('when a user/password is wrong or has no graph, then error:true', async () => {
    const wrong = await call(url, {
      method: 'POST',
      body: "{'graph':'social'}",
      headers: { authorization: basic('alice', 'nope') },
    });
    expect(wrong.json).toMatchObject({ error: true, code: 'REST-10001' });
    const noGraph = await call(url, {
      method: 'POST',
      body: '{}',
      headers: { authorization: basic('alice', 'alice-pw') },
    });
    expect(noGraph.json).toMatchObject({ error: true, code: 'REST-1104' });
  });

  it('when a token is refreshed later, then it is the same token and expiry = now + lifetime', async () => {
    const minted = await call(url, { method: 'POST', body: JSON.stringify({ secret, lifetime: '100' }) });
    clock.advance(50_000);
    const res = await call(url, {
      method: 'PUT',
      body: JSON.stringify({ secret, token: minted.json.token, lifetime: 500 }),
    });
    expect(res.json).toEqual({
      code: 'REST-0000',
      expiration: clock.nowSeconds() + 500,
      error: false,
      message: 'Refresh token successfully.',
      token: minted.json.token,
    });
    expect(sim.tokens().find((t) => t.token === minted.json.token)?.expiresAt).toBe(clock.nowSeconds() + 500);
  });

  it('when a token is deleted, then the answer has expiration -1 and deleting again gives REST-3300', async () => {
    const minted = await call(url, { method: 'POST', body: JSON.stringify({ secret }) });
    const token = minted.json.token;
    const res = await call(url, { method: 'DELETE', body: JSON.stringify({ secret, token }) });
    expect(res.json).toEqual({
      code: 'REST-0000',
      expiration: -1,
      error: false,
      message: 'Drop token successfully.',
      token,
    });
    const again = await call(url, { method: 'DELETE', body: JSON.stringify({ secret, token }) });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ error: true, code: 'REST-3300' });
    expect(again.json.message).toContain("doesn't exist");
    const refresh = await call(url, { method: 'PUT', body: JSON.stringify({ secret, token }) });
    expect(refresh.json).toMatchObject({ error: true, code: 'REST-3300' });
  });

  it("when a user touches another user's token, then permission is denied; the superuser may", async () => {
    const mine = await call(url, { method: 'POST', body: JSON.stringify({ secret }) });
    const aliceSecret = sim.createSecret({ user: 'alice' }).value;
    const res = await call(url, {
      method: 'PUT',
      body: JSON.stringify({ secret: aliceSecret, token: mine.json.token }),
    });
    expect(res.json).toEqual({ error: true, message: 'Refresh token failed, Permission denied.', code: 'REST-10001' });
    const drop = await call(url, {
      method: 'DELETE',
      body: JSON.stringify({ secret: aliceSecret, token: mine.json.token }),
    });
    expect(drop.json.message).toBe('Drop token failed, Permission denied.');
    const alices = await call(url, { method: 'POST', body: JSON.stringify({ secret: aliceSecret }) });
    const bySuper = await call(url, { method: 'DELETE', body: JSON.stringify({ secret, token: alices.json.token }) });
    expect(bySuper.json.error).toBe(false);
  });

  it('when Basic auth refreshes and deletes, then no secret is needed', async () => {
    const auth = { authorization: basic('alice', 'alice-pw') };
    const minted = await call(url, { method: 'POST', body: '{"graph":"social"}', headers: auth });
    const token = minted.json.results.token;
    const put = await call(url, { method: 'PUT', body: JSON.stringify({ token, lifetime: '10' }), headers: auth });
    expect(put.json).toMatchObject({ error: false, expiration: clock.nowSeconds() + 10, token });
    const del = await call(url, { method: 'DELETE', body: JSON.stringify({ token }), headers: auth });
    expect(del.json).toMatchObject({ error: false, expiration: -1 });
  });
});

describe('simulator /requesttoken across 3.5–4.0 versions', () => {
  it('when omitTokenExpiration is set on 3.6+, then POST answers lack expiration but PUT keeps it', async () => {
    const sim = await startSimulator({ version: '3.6.0', omitTokenExpiration: true });
    try {
      const secret = sim.createSecret().value;
      const url = `${sim.restppUrl}/requesttoken`;
      const res = await call(url, { method: 'POST', body: JSON.stringify({ secret }) });
      expect(res.json.error).toBe(false);
      expect('expiration' in res.json).toBe(false);
      const put = await call(url, { method: 'PUT', body: JSON.stringify({ secret, token: res.json.token }) });
      expect(typeof put.json.expiration).toBe('number');
    } finally {
      await sim.close();
    }
  });

  it('when omitTokenExpiration is set on 3.5, then it is ignored (3.5 always sends the expiry)', async () => {
    const sim = await startSimulator({ version: '3.5.0', omitTokenExpiration: true });
    try {
      const res = await call(`${sim.restppUrl}/requesttoken`, {
        method: 'POST',
        body: JSON.stringify({ secret: sim.createSecret().value }),
      });
      expect(typeof res.json.expiration).toBe('number');
    } finally {
      await sim.close();
    }
  });

  it('when 4.0 gets a lifetime of at least 1e8, then it is read as milliseconds; smaller as seconds', async () => {
    const clock = manualClock(SIM_EPOCH);
    const sim = await startSimulator({ version: '4.0.1', now: clock.now });
    try {
      const secret = sim.createSecret().value;
      const url = `${sim.restppUrl}/requesttoken`;
      expect(sim.restppUrl).toBe(`http://127.0.0.1:${sim.restppPort}`);
      const ms = await call(url, { method: 'POST', body: JSON.stringify({ secret, lifetime: '200000000' }) });
      expect(ms.json.expiration).toBe(clock.nowSeconds() + 200_000);
      const s = await call(url, { method: 'POST', body: JSON.stringify({ secret, lifetime: '3600' }) });
      expect(s.json.expiration).toBe(clock.nowSeconds() + 3600);
      expect(s.json.token).toMatch(/^[a-z0-9]{32}$/);
    } finally {
      await sim.close();
    }
  });
});
