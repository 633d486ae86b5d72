import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { basic, bearer, call, SIM_EPOCH } from './sim-http.js';
import { manualClock } from '../../helpers/clock.js';

const mint = async (sim: SimulatorHandle, secret: string, lifetime?: number): Promise<string> => {
  const body = JSON.stringify({ secret, ...(lifetime !== undefined && { lifetime: String(lifetime) }) });
  const res = await call(`${sim.restppUrl}/requesttoken`, { method: 'POST', body });
  return res.json.token as string;
};

describe.each([401, 403] as const)('simulator data-endpoint auth with authFailureStatus %i', (status) => {
  const clock = manualClock(SIM_EPOCH);
  let sim: SimulatorHandle;
  let secret: string;

  beforeAll(async () => {
    sim = await startSimulator({ version: '3.9.3', now: clock.now, authFailureStatus: status, graphs: ['other'] });
    secret = sim.createSecret().value;
  });
  afterAll(() => sim.close());

  const echo = (headers: Record<string, string> = {}) => call(`${sim.restppUrl}/echo`, { headers });

  it(`when no token is sent, then ${status} REST-10016 "empty or too short" and seen() says missing`, async () => {
    const res = await echo();
    expect(res.status).toBe(status);
    expect(res.json).toEqual({
      error: true,
      message: "Access Denied because the input token = '' is empty or too short",
      code: 'REST-10016',
    });
    expect(sim.seen().at(-1)).toMatchObject({ path: '/echo', auth: 'missing', status });
  });

  it(`when an unknown well-formed token is sent, then ${status} REST-10016 with the token masked`, async () => {
    const token = 'abcdefghijklmnopqrstuvwxyz012345';
    const res = await echo({ authorization: bearer(token) });
    expect(res.status).toBe(status);
    expect(res.json.code).toBe('REST-10016');
    expect(res.json.message).toContain("'abcd****345'");
    expect(res.text).not.toContain(token);
    expect(sim.seen().at(-1)?.auth).toBe('invalid');
  });

  it(`when a short token is sent, then ${status} REST-10016 "too short"`, async () => {
    const res = await echo({ authorization: bearer('short') });
    expect(res.status).toBe(status);
    expect(res.json.message).toBe("Access Denied because the input token = '****' is empty or too short");
  });

  it(`when the clock passes the expiry, then ${status} REST-10019 and seen() says expired`, async () => {
    const token = await mint(sim, secret, 60);
    expect((await echo({ authorization: bearer(token) })).status).toBe(200);
    expect(sim.seen().at(-1)?.auth).toBe('ok');
    clock.advance(60_000);
    const res = await echo({ authorization: bearer(token) });
    expect(res.status).toBe(status);
    expect(res.json.code).toBe('REST-10019');
    expect(sim.seen().at(-1)?.auth).toBe('expired');
    expect(sim.tokens().some((t) => t.token === token)).toBe(false);
  });

  it('when a token is revoked, then it is refused at once', async () => {
    const token = await mint(sim, secret);
    sim.revokeToken(token);
    const res = await echo({ authorization: bearer(token) });
    expect(res.status).toBe(status);
    expect(res.json.code).toBe('REST-10016');
  });

  it('when the secret is dropped over GSQL, then its tokens stop working', async () => {
    const created = sim.createSecret({ alias: `drop_me_${status}` });
    const token = await mint(sim, created.value);
    expect((await echo({ authorization: bearer(token) })).status).toBe(200);
    const drop = await call(`${sim.gsqlUrl}/gsqlserver/gsql/file`, {
      method: 'POST',
      body: encodeURIComponent(`USE GRAPH social\nDROP SECRET drop_me_${status}`),
      headers: { authorization: basic('tigergraph', 'tigergraph') },
    });
    expect(drop.text).toContain('Successfully dropped secrets');
    const res = await echo({ authorization: bearer(token) });
    expect(res.status).toBe(status);
    expect(sim.tokens().some((t) => t.token === token)).toBe(false);
  });

  it('when a social token is used on another graph, then it is refused', async () => {
    const token = await mint(sim, secret);
    const res = await call(`${sim.restppUrl}/graph/other/vertices/Person`, {
      headers: { authorization: bearer(token) },
    });
    expect(res.status).toBe(status);
    expect(res.json.code).toBe('REST-10016');
  });
});

describe('simulator 4.x error envelope', () => {
  it('when a 4.1 data call lacks a token, then the error carries the version object first', async () => {
    const sim = await startSimulator({ version: '4.1.2' });
    try {
      const res = await call(`${sim.restppUrl}/graph/social/vertices/Person`);
      expect(res.status).toBe(401);
      expect(Object.keys(res.json)[0]).toBe('version');
      expect(res.json).toEqual({
        version: { edition: 'enterprise', api: 'v2', schema: 0 },
        error: true,
        message: "Access Denied because the input token = '' is empty or too short",
        code: 'REST-10016',
      });
    } finally {
      await sim.close();
    }
  });
});

describe('simulator with RESTPP auth disabled', () => {
  it.each(['3.4.0', '3.9.3', '4.1.0'])(
    'when %s has auth off, then /requesttoken is 404 REST-1000 and data is open',
    async (version) => {
      const sim = await startSimulator({ version, authEnabled: false });
      try {
        for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
          const res = await call(`${sim.restppUrl}/requesttoken`, { method, body: JSON.stringify({ secret: 'x' }) });
          expect(res.status).toBe(404);
          expect(res.json).toMatchObject({
            error: true,
            code: 'REST-1000',
            message:
              'Endpoint is not found from url = /requesttoken, please use GET /endpoints to list all valid endpoints.',
          });
        }
        const data = await call(`${sim.restppUrl}/graph/social/vertices/Person/alice`);
        expect(data.status).toBe(200);
        expect(data.json.results[0].v_id).toBe('alice');
        expect(sim.seen().at(-1)?.auth).toBeUndefined();
      } finally {
        await sim.close();
      }
    },
  );
});
