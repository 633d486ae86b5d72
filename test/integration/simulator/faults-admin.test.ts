import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { bearer, call } from './sim-http.js';

describe('simulator faults, counters and /__sim admin surface', () => {
  let sim: SimulatorHandle;
  let secret: string;
  let admin: string;
  const mint = () => call(`${sim.restppUrl}/requesttoken`, { method: 'POST', body: JSON.stringify({ secret }) });

  beforeAll(async () => {
    sim = await startSimulator({ version: '3.9.3' });
    secret = sim.createSecret().value;
    admin = `http://127.0.0.1:${sim.restppPort}/__sim`;
  });
  afterAll(() => sim.close());
  beforeEach(() => {
    sim.setFaults({});
    sim.resetCounts();
  });

  it('when a token status is forced, then every token call answers it until cleared', async () => {
    sim.setFaults({ tokenForcedStatus: 503 });
    const res = await mint();
    expect(res.status).toBe(503);
    expect(res.json).toMatchObject({ error: true, code: 'SIM-FORCED' });
    sim.setFaults({});
    expect((await mint()).json.error).toBe(false);
  });

  it('when the failure rate is 1, then token calls fail with 500; at 0 they succeed', async () => {
    sim.setFaults({ tokenFailureRate: 1 });
    const res = await mint();
    expect(res.status).toBe(500);
    expect(res.json.code).toBe('SIM-FAILURE');
    sim.setFaults({ tokenFailureRate: 0 });
    expect((await mint()).status).toBe(200);
  });

  it('when token latency is set, then token calls wait at least that long', async () => {
    sim.setFaults({ tokenLatencyMs: 300 });
    const t0 = Date.now();
    const { json } = await mint();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect(json.error).toBe(false);
  });

  it('when global latency is set, then every answer waits at least that long', async () => {
    sim.setFaults({ latencyMs: 200 });
    const t0 = Date.now();
    await call(`${sim.restppUrl}/echo`);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(150);
  });

  it('when calls are made, then counts are per "METHOD /path" and reset clears them', async () => {
    await mint();
    await mint();
    await call(`${sim.gsqlUrl}/restpp/graph/social/vertices/Person/alice`);
    expect(sim.counts()).toEqual({ 'POST /requesttoken': 2, 'GET /graph/social/vertices/Person/alice': 1 });
    sim.resetCounts();
    expect(sim.counts()).toEqual({});
  });

  it('when a POST is made, then seen() holds its method, path, query, headers and body', async () => {
    await call(`${sim.restppUrl}/query/social/hello?x=1`, {
      method: 'POST',
      body: '{"name":"seen"}',
      headers: { 'x-test': 'yes' },
    });
    expect(sim.seen().at(-1)).toMatchObject({
      port: 'restpp',
      method: 'POST',
      path: '/query/social/hello',
      query: 'x=1',
      bodyText: '{"name":"seen"}',
      auth: 'missing',
      status: 401,
    });
    expect(sim.seen().at(-1)?.headers['x-test']).toBe('yes');
  });

  it('when /__sim is used over HTTP, then counts, faults, revoke, secrets and reset work and are not counted', async () => {
    const created = await call(`${admin}/secrets`, { method: 'POST', body: '{"alias":"over_http"}' });
    expect(created.json).toEqual({ alias: 'over_http', value: expect.stringMatching(/^[a-z0-9]{32}$/) });
    const minted = await call(`${sim.restppUrl}/requesttoken`, {
      method: 'POST',
      body: JSON.stringify({ secret: created.json.value }),
    });
    const counts = await call(`${admin}/counts`);
    expect(counts.json).toEqual({ 'POST /requesttoken': 1 });

    await call(`${admin}/revoke`, { method: 'POST', body: JSON.stringify({ token: minted.json.token }) });
    expect(
      (await call(`${sim.restppUrl}/echo`, { headers: { authorization: bearer(minted.json.token) } })).json.code,
    ).toBe('REST-10016');

    await call(`${admin}/faults`, { method: 'POST', body: '{"tokenForcedStatus":502}' });
    expect((await mint()).status).toBe(502);
    await call(`${admin}/faults`, { method: 'POST', body: '{}' });
    expect((await mint()).status).toBe(200);

    await call(`${admin}/reset`, { method: 'POST' });
    expect((await call(`${admin}/counts`)).json).toEqual({});
    expect(sim.seen()).toEqual([]);
    expect((await call(`${admin}/nope`)).status).toBe(404);
  });

  it('when /__sim/secrets names an unknown user, then 400', async () => {
    const res = await call(`${admin}/secrets`, { method: 'POST', body: '{"user":"ghost"}' });
    expect(res.status).toBe(400);
  });
});

describe('simulator latency option', () => {
  it('when latencyMs is given at start, then answers wait for it', async () => {
    const sim = await startSimulator({ latencyMs: 200, authEnabled: false });
    try {
      const t0 = Date.now();
      expect((await call(`${sim.restppUrl}/echo`)).status).toBe(200);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(150);
    } finally {
      await sim.close();
    }
  });
});
