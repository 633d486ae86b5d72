import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { createGsqlClient, type GsqlClient } from '../../../packages/client/src/gsql-client.js';
import { expectKind } from './fixtures.js';

const admin = { username: 'tigergraph', password: 'tigergraph' };

describe.each([
  ['3.9.3', ['POST /gsqlserver/gsql/file']],
  ['4.0.0', ['POST /gsql/v1/statements', 'POST /gsqlserver/gsql/file']],
  ['4.1.0', ['POST /gsql/v1/statements']],
] as const)('runGsql against the simulator in version %s', (version, expectedCalls) => {
  let sim: SimulatorHandle;
  let gsql: GsqlClient;

  beforeEach(async () => {
    sim = await startSimulator({ version });
    gsql = createGsqlClient({ gsqlUrl: sim.gsqlUrl, version, timeoutMs: 5000 });
  });

  afterEach(async () => {
    await gsql.close();
    await sim.close();
  });

  test(`when statements run, then they go to ${expectedCalls.join(' then ')} and the output text comes back`, async () => {
    sim.createSecret({ alias: 'listed', graph: version === '4.1.0' ? undefined : 'social' });
    const out = await gsql.runGsql(admin, 'USE GRAPH social\nSHOW SECRET');
    expect(out).toMatch(/^Using graph 'social'\n- Secret: \w{3}\*{4}\w{3}\n- Alias: listed/);
    expect(sim.seen().map((s) => `${s.method} ${s.path}`)).toEqual(expectedCalls);
    const last = sim.seen().at(-1);
    expect(last?.headers['content-type']).toBe(
      last?.path === '/gsql/v1/statements' ? 'text/plain; charset=utf-8' : 'application/x-www-form-urlencoded',
    );
  });

  test('when the admin password is wrong, then it raises invalid_credentials with 401 and no password in the message', async () => {
    const err = await expectKind(
      gsql.runGsql({ username: 'tigergraph', password: 'hunter2hunter2' }, 'SHOW SECRET'),
      'invalid_credentials',
    );
    expect(err.status).toBe(401);
    expect(err.message).not.toContain('hunter2hunter2');
  });
});
