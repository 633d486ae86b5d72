/**
 * A logout's upstream delete is never lost (issue 42, item 1): when the data server fails the token delete at
 * POST /auth/logout, the logout still answers 204 and ends the session here, and the session-end sweeper deletes
 * the token (and drops a password login's secret) once the data server answers again. Before, the token stayed
 * valid upstream for its whole lifetime.
 */
import { describe, expect, test } from '@jest/globals';
import type { Rig } from '../../helpers/app-rig.js';
import { onEachStore } from '../../helpers/each-store.js';
import { until } from '../../helpers/wait.js';
import { deletesOf, lastToken, upstreamVerdict } from '../../helpers/upstream-token.js';
import { ALICE, dropsSeen, SIM_USERS } from '../admin/admin-harness.js';

const SWEEP_MS = 200;
/**
 * How long to keep waiting for the retry: the sweeper may have tried once while the faults were on, and a
 * failed entry comes due again when its claim runs out (max(2 sweeps, 10 s), src/service.ts), so twice that
 * and a margin for a busy machine.
 */
const RETRY_WAIT = { timeoutMs: 40_000 };
const settings = { TOKEN_SWEEP_INTERVAL_MS: String(SWEEP_MS), LOGIN_RATE_LIMIT: '1000' };

/** Logs out while every token call fails with 503, then lets the data server answer again. */
async function logoutWhileTokenCallsFail(rig: Rig, agent: Awaited<ReturnType<Rig['login']>>, token: string) {
  rig.sim.setFaults({ tokenForcedStatus: 503 });
  try {
    expect((await agent.post('/auth/logout')).status).toBe(204);
    // The set-up held: the delete was tried and refused, and the token still works upstream.
    expect(deletesOf(rig.sim, token, 503).length).toBeGreaterThanOrEqual(1);
    expect(await upstreamVerdict(rig.sim, token)).toBe('ok');
    // The session is over here at once, whatever the data server did.
    expect((await agent.get('/api/echo')).status).toBe(401);
  } finally {
    rig.sim.setFaults({});
  }
}

describe('a logout whose upstream token delete fails (redis and memory stores)', () => {
  test('when the data server refuses the delete at logout, then the sweeper deletes the token once it answers', async () => {
    await onEachStore({ env: settings }, async (rig) => {
      const agent = await rig.login();
      expect((await agent.get('/api/echo')).status).toBe(200);
      const token = lastToken(rig.sim, '/echo');

      await logoutWhileTokenCallsFail(rig, agent, token);

      await until(
        'the token to be deleted upstream',
        async () => (await upstreamVerdict(rig.sim, token)) === 'REST-10016',
        RETRY_WAIT,
      );
      expect(deletesOf(rig.sim, token, 200)).toHaveLength(1);
      expect(rig.logs()).toContain('the session-end sweeper retries it');
      expect(rig.logs()).not.toContain(token);
    });
  });

  test('when a password login logs out while token calls fail, then its token is deleted and its secret dropped later', async () => {
    await onEachStore({ env: { ...settings, PASSWORD_LOGIN: 'true' }, sim: SIM_USERS }, async (rig) => {
      const agent = rig.agent();
      const login = await agent
        .post('/auth/login')
        .send({ username: ALICE.name, password: ALICE.password, graph: 'social' });
      expect(login.status).toBe(200);
      expect((await agent.get('/api/echo')).status).toBe(200);
      const token = lastToken(rig.sim, '/echo');
      const alias = rig.sim.tokens().find((t) => t.token === token)?.secretAlias;
      expect(alias).toEqual(expect.any(String));

      await logoutWhileTokenCallsFail(rig, agent, token);
      // Token first, then the secret: nothing was dropped while the token could not be deleted.
      expect(dropsSeen(rig.sim, alias!)).toBe(0);

      await until(
        'the token to be deleted upstream',
        async () => (await upstreamVerdict(rig.sim, token)) === 'REST-10016',
        RETRY_WAIT,
      );
      await until('the secret to be dropped', () => dropsSeen(rig.sim, alias!) >= 1, RETRY_WAIT);
    });
  });
});
