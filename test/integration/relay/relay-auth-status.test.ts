import { afterEach, describe, expect, it } from '@jest/globals';
import { startRig, type Rig } from '../../helpers/app-rig.js';

/**
 * The whole service against the simulator with REST-10016 answered as 401 and as 403 (TigerGraph
 * versions differ; docs/tigergraph-wire.md §5): a dead token is re-minted once and the request replayed
 * under both statuses, and a permission refusal reaches the browser unchanged under both.
 */
const mintCalls = (rig: Rig): number =>
  rig.sim.seen().filter((s) => (s.path === '/requesttoken' || s.path === '/gsql/v1/tokens') && s.method === 'POST')
    .length;

describe.each([
  ['3.9.3', 401],
  ['3.9.3', 403],
  ['4.1.0', 401],
  ['4.1.0', 403],
] as const)('relay on TigerGraph %s with auth failures answered %i', (version, authFailureStatus) => {
  let rig: Rig;
  afterEach(() => rig.close());

  it('when the session token dies upstream, then the service mints exactly one new token and the request succeeds', async () => {
    rig = await startRig({ store: 'memory', sim: { version, authFailureStatus } });
    const agent = await rig.login();
    expect((await agent.get('/api/echo')).status).toBe(200);
    const used = rig.sim
      .seen()
      .filter((s) => s.path === '/echo')
      .at(-1)!.headers.authorization as string;
    rig.sim.revokeToken(used.slice('Bearer '.length));
    const mintsBefore = mintCalls(rig);

    const res = await agent.get('/api/echo');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ error: false, message: 'Hello GSQL' });
    expect(mintCalls(rig) - mintsBefore).toBe(1);
    const echoes = rig.sim
      .seen()
      .filter((s) => s.path === '/echo')
      .slice(-2);
    expect(echoes.map((s) => [s.auth, s.status])).toEqual([
      ['invalid', authFailureStatus],
      ['ok', 200],
    ]);
  });

  it('when the user lacks the graph privilege, then the refusal passes through with its status and no token is minted', async () => {
    rig = await startRig({
      store: 'memory',
      sim: {
        version,
        authFailureStatus,
        graphs: ['other'],
        users: [{ name: 'ann', password: 'ann-pw', graphs: ['social'] }],
      },
    });
    const annSecret = rig.sim.createSecret({
      user: 'ann',
      ...(version === '3.9.3' && { graph: 'social' }),
      alias: 'ann_key',
    }).value;
    const agent = await rig.login(annSecret);
    expect((await agent.get('/api/graph/social/vertices/Person')).status).toBe(200);
    const mintsBefore = mintCalls(rig);

    const res = await agent.get('/api/graph/other/vertices/Person');
    expect(res.status).toBe(authFailureStatus);
    expect(res.body).toMatchObject({ error: true, code: 'REST-10016' });
    expect(res.body.message).toMatch(/has no access to graph 'other'\.$/);
    expect(mintCalls(rig)).toBe(mintsBefore);
    expect(rig.sim.seen().filter((s) => s.path === '/graph/other/vertices/Person')).toHaveLength(1);
  });
});
