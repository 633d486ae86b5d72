import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startRig, type Rig } from '../../helpers/app-rig.js';

/** The token the data server saw on the last request for `path`. */
function lastToken(rig: Rig, path: string): string {
  const auth = rig.sim
    .seen()
    .filter((r) => r.path === path)
    .at(-1)!.headers.authorization as string;
  return auth.replace('Bearer ', '');
}

const count = (rig: Rig, key: string): number => rig.sim.counts()[key] ?? 0;

describe('no token pile-up (issue 11 item 5)', () => {
  let rig: Rig;
  beforeAll(async () => {
    // The rig's secret is bound to `social`; `finance` exists but that secret does not cover it.
    rig = await startRig({ sim: { graphs: ['finance'] } });
  });
  afterAll(() => rig.close());

  test('when 20 relayed requests ask for a graph the secret does not cover, then each gets the permission error and one token stays live', async () => {
    const agent = await rig.login();
    const livesBefore = rig.sim.tokens().length;
    const mintsBefore = count(rig, 'POST /requesttoken');

    for (let i = 0; i < 20; i++) {
      const res = await agent.get('/api/graph/finance/vertices/Account');
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: true, code: 'REST-10016' });
      expect(res.body.message).toMatch(/has no access to graph 'finance'/);
    }

    expect(count(rig, 'POST /requesttoken')).toBe(mintsBefore);
    expect(rig.sim.tokens()).toHaveLength(livesBefore);
    expect((await agent.get('/api/graph/social/vertices/Person')).status).toBe(200);
  });

  test('when the data server no longer knows the token, then it is re-minted once, the refused one is deleted upstream and the request replays', async () => {
    const agent = await rig.login();
    await agent.get('/api/echo');
    const old = lastToken(rig, '/echo');
    rig.sim.revokeToken(old);
    const mints = count(rig, 'POST /requesttoken');
    const deletes = count(rig, 'DELETE /requesttoken');

    const res = await agent.post('/api/query/social/friends').send({ person: 'alice' });

    expect(res.status).toBe(200);
    expect(count(rig, 'POST /requesttoken')).toBe(mints + 1);
    expect(count(rig, 'DELETE /requesttoken')).toBe(deletes + 1);
    const deleted = rig.sim
      .seen()
      .filter((r) => r.method === 'DELETE' && r.path === '/requesttoken')
      .at(-1)!;
    expect(deleted.bodyText).toContain(old);
    const replays = rig.sim
      .seen()
      .filter((r) => r.path === '/query/social/friends')
      .slice(-2);
    expect(replays.map((r) => r.auth)).toEqual(['invalid', 'ok']);
    expect(lastToken(rig, '/query/social/friends')).not.toBe(old);
    expect(rig.logs()).not.toContain(old);
  });

  test('when the replacement is refused again within the re-mint window, then 401 token_rejected and no further mint', async () => {
    const agent = await rig.login();
    await agent.get('/api/echo');
    rig.sim.revokeToken(lastToken(rig, '/echo'));
    expect((await agent.get('/api/echo')).status).toBe(200);
    const second = lastToken(rig, '/echo');
    rig.sim.revokeToken(second);
    const mints = count(rig, 'POST /requesttoken');

    const res = await agent.get('/api/echo');

    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('token_rejected');
    expect(count(rig, 'POST /requesttoken')).toBe(mints);
    expect(lastToken(rig, '/echo')).toBe(second);
  });
});
