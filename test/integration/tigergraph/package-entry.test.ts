import { Agent } from 'undici';
import { createTokenApi, startSimulator, TigerGraphConnection, TigerGraphError } from '../../../src/index.js';

describe('the package entry', () => {
  test('when the client and simulator are imported from the entry, then a connection gets a token and reads data', async () => {
    const sim = await startSimulator({ version: '3.9.3' });
    const conn = new TigerGraphConnection({
      restppUrl: sim.restppUrl,
      gsqlUrl: sim.gsqlUrl,
      version: '3.9.3',
      graphname: 'social',
    });
    try {
      const secret = await conn.createSecret('entry');
      expect(await conn.getToken(secret)).toBe(sim.tokens()[0]?.token);
      expect(await conn.getVertices('Person', { limit: 1 })).toHaveLength(1);
      expect(new TigerGraphError('protocol', 'x').kind).toBe('protocol');
    } finally {
      await conn.close();
      await sim.close();
    }
  });

  test('when a dispatcher is passed in, then the client uses it and close() leaves it open for its owner', async () => {
    const sim = await startSimulator({ version: '3.9.3' });
    const agent = new Agent({ connections: 2 });
    const secret = sim.createSecret().value;
    try {
      const first = createTokenApi({ restppUrl: sim.restppUrl, version: '3.9.3', dispatcher: agent });
      await first.requestToken(secret);
      await first.close();
      const second = createTokenApi({ restppUrl: sim.restppUrl, version: '3.9.3', dispatcher: agent });
      await second.requestToken(secret);
      expect(sim.tokens()).toHaveLength(2);
      expect(agent.closed).toBe(false);
    } finally {
      await agent.close();
      await sim.close();
    }
  });
});
