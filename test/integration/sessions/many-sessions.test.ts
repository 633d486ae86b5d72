import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { recordFigure } from '../../helpers/figures.js';

const CAP = 1000;
const LOGINS = 1000;
const AT_ONCE = 20;

/**
 * Issue 40, items 5 and 7: one principal with 1,000 sessions (the cap here) is listed in full, every entry
 * present once; 50 logins more still list only the cap; ending all but the current ends the rest.
 */
describe('one principal with 1,000 sessions', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({
      env: {
        SESSIONS_PER_CREDENTIAL: String(CAP),
        LOGIN_RATE_LIMIT: '100000',
        LOGIN_ADDRESS_BUDGET: '100000',
        LOGIN_CREDENTIAL_BUDGET: '100000',
      },
      label: 'many-sessions',
    });
  });
  afterAll(() => rig?.close());

  const loginMany = async (n: number) => {
    for (let i = 0; i < n; i += AT_ONCE) {
      const batch = Array.from({ length: Math.min(AT_ONCE, n - i) }, () =>
        rig.agent().post('/auth/login').send({ secret: rig.secret, graph: 'social' }),
      );
      for (const res of await Promise.all(batch)) expect(res.status).toBe(200);
    }
  };

  test('when one secret logs in 1,000 times, then all 1,000 are listed once each; 50 more logins still list the cap; ending the others leaves one', async () => {
    const me = await rig.login();
    await loginMany(LOGINS - 1);
    const started = Date.now();
    const listed = (await me.get('/auth/sessions')).body.sessions as Array<{ id: string; current: boolean }>;
    recordFigure(`many sessions: GET /auth/sessions of ${listed.length} sessions in ${Date.now() - started} ms`);
    expect(listed).toHaveLength(CAP);
    expect(new Set(listed.map((s) => s.id)).size).toBe(CAP);
    expect(listed.filter((s) => s.current)).toHaveLength(1);

    await loginMany(50);
    const newest = await rig.login();
    expect((await newest.get('/auth/sessions')).body.sessions).toHaveLength(CAP);
    // The earliest sessions were ended by the cap, the first one among them.
    expect((await me.get('/auth/session')).body.error.code).toBe('session_ended');

    const ended = await newest.delete('/auth/sessions');
    expect(ended.status).toBe(200);
    expect(ended.body.ended).toBe(CAP - 1);
    expect((await newest.get('/auth/sessions')).body.sessions).toHaveLength(1);
  }, 300_000);
});
