import { describe, expect, it } from '@jest/globals';
import { startSimulator } from '../../../src/simulator/index.js';
import { until } from '../../helpers/wait.js';
import { basic, bearer, call } from './sim-http.js';
import { types } from 'node:util';

describe('simulator start-up options', () => {
  it('when started with no options, then it is a fresh 3.9.3: tigergraph/tigergraph, graph social, auth on, ephemeral ports', async () => {
    const sim = await startSimulator();
    try {
      expect(sim.version).toBe('3.9.3');
      expect(sim.restppPort).toBeGreaterThan(0);
      expect(sim.gsqlPort).not.toBe(sim.restppPort);
      expect(sim.restppUrl).toBe(`http://127.0.0.1:${sim.restppPort}`);
      const token = await call(`${sim.restppUrl}/requesttoken`, {
        method: 'POST',
        body: '{"graph":"social"}',
        headers: { authorization: basic('tigergraph', 'tigergraph') },
      });
      expect(token.json.error).toBe(false);
      expect((await call(`${sim.restppUrl}/echo`)).status).toBe(401);
    } finally {
      await sim.close();
    }
  });

  it('when users, graphs and secrets are given, then they exist; naming tigergraph changes its password', async () => {
    const sim = await startSimulator({
      graphs: ['empty'],
      users: [
        { name: 'tigergraph', password: 'changed' },
        { name: 'eve', password: 'eve-pw', graphs: ['empty'] },
      ],
      secrets: [{ user: 'eve', graph: 'empty', alias: 'eve_key', value: 'evesecretevesecretevesecret12345' }],
    });
    try {
      const gsql = (user: string, pw: string) =>
        call(`${sim.gsqlUrl}/gsqlserver/gsql/file`, {
          method: 'POST',
          body: 'SHOW+SECRET',
          headers: { authorization: basic(user, pw) },
        });
      expect((await gsql('tigergraph', 'tigergraph')).status).toBe(401);
      expect((await gsql('tigergraph', 'changed')).status).toBe(200);
      expect((await gsql('eve', 'eve-pw')).text).toContain('- Alias: eve_key\n- GraphName: empty');
      const minted = await call(`${sim.restppUrl}/requesttoken`, {
        method: 'POST',
        body: '{"secret":"evesecretevesecretevesecret12345"}',
      });
      const vertices = await call(`${sim.restppUrl}/graph/empty/vertices/Person`, {
        headers: { authorization: bearer(minted.json.token) },
      });
      expect(vertices.json).toMatchObject({ error: false, results: [] });
    } finally {
      await sim.close();
    }
  });

  it('when a user names a graph that does not exist, then start-up fails with the graph named', async () => {
    await expect(startSimulator({ users: [{ name: 'x', password: 'y', graphs: ['ghost'] }] })).rejects.toThrow(
      /unknown graph "ghost"/,
    );
  });

  it('when authFailureStatus is neither 401 nor 403 (an untyped caller), then start-up fails', async () => {
    await expect(startSimulator({ authFailureStatus: 500 as unknown as 401 })).rejects.toThrow(/401 or 403/);
  });

  it('when the version is not understood, then start-up fails', async () => {
    await expect(startSimulator({ version: 'next' })).rejects.toThrow(/Unsupported TigerGraph version/);
  });

  it('when bound to 0.0.0.0, then the URLs use 127.0.0.1', async () => {
    const sim = await startSimulator({ host: '0.0.0.0', authEnabled: false });
    try {
      expect(sim.gsqlUrl).toBe(`http://127.0.0.1:${sim.gsqlPort}`);
      expect((await call(`${sim.restppUrl}/echo`)).status).toBe(200);
    } finally {
      await sim.close();
    }
  });

  it('when closed with a slow request in flight, then close resolves and the port refuses connections', async () => {
    const sim = await startSimulator({ authEnabled: false });
    const slow = call(`${sim.restppUrl}/echo?sleep=30`).catch((err: unknown) => err);
    await until('the slow request to reach the simulator', () => sim.seen().some((r) => r.path === '/echo'));
    await sim.close();
    // Whichever side noticed the close first: undici's own error, or node's socket error from outside jest's
    // realm (instanceof Error is false for that one, which once failed this test on a loaded machine).
    expect(types.isNativeError(await slow)).toBe(true);
    await expect(call(`${sim.restppUrl}/echo`)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('when 4.1 token calls have a forced fault, then /gsql/v1/tokens answers it too', async () => {
    const sim = await startSimulator({ version: '4.1.0' });
    try {
      sim.setFaults({ tokenForcedStatus: 503 });
      const res = await call(`${sim.gsqlUrl}/gsql/v1/tokens`, {
        method: 'POST',
        body: JSON.stringify({ secret: sim.createSecret().value }),
      });
      expect(res.status).toBe(503);
      expect(res.json.code).toBe('SIM-FORCED');
    } finally {
      await sim.close();
    }
  });
});
