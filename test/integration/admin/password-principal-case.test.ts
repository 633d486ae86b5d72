import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startRig, type Rig } from '../../helpers/app-rig.js';

/**
 * Two TigerGraph users are never one principal (issue 42, item 4): the password login keyed its principal by
 * the lower-cased user name, so `alice` logging in ended `Alice`'s session (one session per credential here)
 * and spent her budgets. The principal is the name exactly as TigerGraph authenticates it.
 */
const LOWER = { name: 'alice', password: 'alice-Pa55word-xyz', graphs: ['social'] };
const UPPER = { name: 'Alice', password: 'Alice-0ther-Pa55word', graphs: ['social'] };

describe('password logins of two users whose names differ only in case', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({
      store: 'memory',
      sim: { users: [LOWER, UPPER] },
      env: { PASSWORD_LOGIN: 'true', SESSIONS_PER_CREDENTIAL: '1' },
    });
  });
  afterAll(() => rig.close());

  const login = async (user: typeof LOWER) => {
    const agent = rig.agent();
    const res = await agent.post('/auth/login').send({ username: user.name, password: user.password, graph: 'social' });
    expect(res.status).toBe(200);
    return agent;
  };

  it('when alice logs in after Alice, then Alice keeps her session (one per credential)', async () => {
    const upper = await login(UPPER);
    expect((await upper.get('/api/echo')).status).toBe(200);
    const lower = await login(LOWER);
    expect((await lower.get('/api/echo')).status).toBe(200);
    expect((await upper.get('/api/echo')).status).toBe(200);
    // The set-up holds: the cap of one does end a second session of the same user.
    const again = await login(UPPER);
    expect((await again.get('/api/echo')).status).toBe(200);
    expect((await upper.get('/api/echo')).status).toBe(401);
    expect((await lower.get('/api/echo')).status).toBe(200);
  });
});
