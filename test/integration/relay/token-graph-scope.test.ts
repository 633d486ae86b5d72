import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { manualClock } from '../../helpers/clock.js';
import { until } from '../../helpers/wait.js';

/**
 * A session's tokens are all for the graph its login named. On 4.1+ a secret belongs to a user, not a
 * graph, and there is no refresh on the wire: every "refresh" and every re-mint is a new POST
 * /gsql/v1/tokens. Minted without the login's graph, that token reaches every graph of the user: a session
 * that logged in to `social` could read `other` after its first refresh.
 */
const mints = (rig: Rig): number =>
  rig.sim.seen().filter((s) => s.path === '/gsql/v1/tokens' && s.method === 'POST').length;

describe('the graph of a session on TigerGraph 4.1', () => {
  // The service's and the simulator's clock: the test moves a token past its refresh point by hand.
  const clock = manualClock();
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({
      now: clock.now,
      store: 'memory',
      sim: {
        version: '4.1.0',
        graphs: ['other'],
        users: [{ name: 'ann', password: 'ann-pw', graphs: ['social', 'other'] }],
      },
      // Due for refresh a second after each mint: the next requests refresh it.
      env: { TG_TOKEN_LIFETIME: '120', TOKEN_REFRESH_BEFORE: '119' },
    });
  });
  afterAll(() => rig.close());

  const otherGraph = (agent: Awaited<ReturnType<Rig['login']>>) => agent.get('/api/graph/other/vertices/Person');

  it('when the token is refreshed or re-minted, then it is still for the login graph only', async () => {
    // A 4.1 secret with no graph of its own: only the login's graph limits the token.
    const secret = rig.sim.createSecret({ user: 'ann', alias: 'ann_any' }).value;
    const agent = await rig.login(secret); // graph social
    expect((await agent.get('/api/graph/social/vertices/Person')).status).toBe(200);
    expect((await otherGraph(agent)).body).toMatchObject({ error: true, code: 'REST-10016' });

    // Routine refresh: the token falls due a second after its mint; requests until one has minted the next.
    const before = mints(rig);
    clock.advance(2000);
    await until('a request to mint the next token', async () => {
      expect((await agent.get('/api/echo')).status).toBe(200);
      return mints(rig) > before;
    });
    expect((await otherGraph(agent)).body).toMatchObject({ error: true, code: 'REST-10016' });

    // Re-mint after the data server refused the token.
    const used = rig.sim
      .seen()
      .filter((s) => s.path === '/graph/social/vertices/Person' || s.path === '/echo')
      .at(-1)!.headers.authorization as string;
    rig.sim.revokeToken(used.slice('Bearer '.length));
    const beforeRemint = mints(rig);
    expect((await agent.get('/api/graph/social/vertices/Person')).status).toBe(200);
    expect(mints(rig)).toBeGreaterThan(beforeRemint);
    expect((await otherGraph(agent)).body).toMatchObject({ error: true, code: 'REST-10016' });

    // Every token request of the session named the graph.
    const bodies = rig.sim
      .seen()
      .filter((s) => s.path === '/gsql/v1/tokens' && s.method === 'POST')
      .map((s) => (JSON.parse(s.bodyText ?? '{}') as { graph?: string }).graph);
    expect(new Set(bodies)).toEqual(new Set(['social']));
  });
});
