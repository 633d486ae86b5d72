import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { bearer, call } from './sim-http.js';

// TigerGraph's per-request query knobs (docs, API "Size and time limits"): GSQL-TIMEOUT in ms, RESPONSE-LIMIT
// in bytes. The simulator honours them as RESTPP does, so the relay's guardrails meet the real behaviour.
describe.each(['3.9.3', '4.1.0'])('simulator query limits (%s)', (version) => {
  let sim: SimulatorHandle;
  let auth: Record<string, string>;
  let base: string;

  beforeAll(async () => {
    sim = await startSimulator({ version });
    const { value } = sim.createSecret();
    const res = await call(`${sim.restppUrl}/requesttoken`, {
      method: 'POST',
      body: JSON.stringify({ secret: value }),
    });
    auth = { authorization: bearer(res.json.token ?? res.json.results?.token) };
    base = sim.restppUrl;
  });
  afterAll(() => sim.close());

  it('when a query ends within its GSQL-TIMEOUT, then its result comes', async () => {
    const res = await call(`${base}/query/social/sleep?ms=50`, { headers: { ...auth, 'GSQL-TIMEOUT': '1000' } });
    expect([res.status, res.json.results]).toEqual([200, [{ slept: 50 }]]);
  });

  it('when a query runs past GSQL-TIMEOUT, then it stops there and answers REST-3000, the header timeout', async () => {
    const started = Date.now();
    const res = await call(`${base}/query/social/sleep?ms=5000`, { headers: { ...auth, 'GSQL-TIMEOUT': '300' } });
    const elapsed = Date.now() - started;
    expect([res.status, res.json.error, res.json.code]).toEqual([504, true, 'REST-3000']);
    expect(res.json.message).toMatch(
      /^The query didn't finish because it exceeded the query timeout threshold \(0\.3 seconds\)/,
    );
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(5000);
    if (version.startsWith('4')) expect(res.json.version).toBeDefined();
  });

  it('when an answer is over RESPONSE-LIMIT, then REST-4000 replaces it; at or under it, the result comes', async () => {
    const over = await call(`${base}/query/social/hello?name=World`, { headers: { ...auth, 'RESPONSE-LIMIT': '20' } });
    expect([over.status, over.json.error, over.json.code]).toEqual([200, true, 'REST-4000']);
    expect(over.json.message).toMatch(/^The query response size is \d+B, which exceeds limit 20B\.$/);
    expect(over.json.results).toBeUndefined();
    const under = await call(`${base}/query/social/hello?name=World`, {
      headers: { ...auth, 'RESPONSE-LIMIT': '100000' },
    });
    expect([under.status, under.json.results]).toEqual([200, [{ greeting: 'Hello, World!' }]]);
  });

  it("when a built-in listing runs past its timeout= parameter (seconds), then it stops there with REST-3000; a query's own timeout is no limit", async () => {
    const path = '/graph/social/vertices/Person';
    sim.setFaults({ latencyMs: 60_000 });
    try {
      const res = await call(`${base}${path}?limit=1&timeout=1`, { headers: auth });
      expect([res.status, res.json.error, res.json.code]).toEqual([504, true, 'REST-3000']);
      expect(res.json.message).toMatch(/exceeded the query timeout threshold \(1 seconds\)/);
    } finally {
      sim.setFaults({});
    }
    sim.setFaults({ latencyMs: 50 });
    try {
      // Within its timeout the listing comes; on an installed query `timeout` is the query's parameter.
      const listed = await call(`${base}${path}?limit=1&timeout=5`, { headers: auth });
      expect([listed.status, listed.json.error, listed.json.results.length]).toEqual([200, false, 1]);
      const query = await call(`${base}/query/social/sleep?ms=20&timeout=0.001`, { headers: auth });
      expect([query.status, query.json.results]).toEqual([200, [{ slept: 20 }]]);
    } finally {
      sim.setFaults({});
    }
  });

  it('when the headers are malformed, then they are ignored as unset (the default 16 s limit applies)', async () => {
    const res = await call(`${base}/query/social/sleep?ms=20`, {
      headers: { ...auth, 'GSQL-TIMEOUT': 'soon', 'RESPONSE-LIMIT': 'x' },
    });
    expect([res.status, res.json.results]).toEqual([200, [{ slept: 20 }]]);
  });
});
