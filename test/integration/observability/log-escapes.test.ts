import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startRig, type Rig } from '../../helpers/app-rig.js';

/**
 * Strings that come from users, IdPs and TigerGraph reach stdout and the audit stream with C1 controls and
 * U+2028/2029 escaped (issue 42, item 5): a TigerGraph user whose name carries U+0085 or U+2028 logs in with
 * a password, and neither the request log nor the audit trail holds the raw character.
 */
// C1 controls: U+2028 is escaped by the same rule (test/unit/observability/line-escape.test.ts), but no TigerGraph
// user name carries it through the simulator's admin API.
const NAME = 'mal\u0085lory\u009b31m';
const RAW = /[\u0080-\u009f\u2028\u2029]/;

describe('user-supplied strings in log lines', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({
      store: 'memory',
      sim: { users: [{ name: NAME, password: 'mallory-Pa55word-xyz', graphs: ['social'] }] },
      env: { PASSWORD_LOGIN: 'true' },
    });
  });
  afterAll(() => rig.close());

  it('when a user with C1 controls and U+2028 in the name logs in and relays, then no line holds them raw', async () => {
    const agent = rig.agent();
    const login = await agent
      .post('/auth/login')
      .send({ username: NAME, password: 'mallory-Pa55word-xyz', graph: 'social' });
    expect({ status: login.status, body: login.body as unknown }).toMatchObject({ status: 200 });
    expect((await agent.get('/api/graph/social/vertices/Person')).status).toBe(200);
    // The set-up holds: the name reached the lines, escaped.
    const text = rig.logs() + rig.audit();
    expect(text).toContain('mal\\u0085lory');
    expect(text).not.toMatch(RAW);
    for (const line of text.split('\n').filter((l) => l !== ''))
      expect(() => JSON.parse(line) as unknown).not.toThrow();
  });
});
