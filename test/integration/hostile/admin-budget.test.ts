import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import supertest from 'supertest';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { ALICE, basic, gsqlUsersSeen } from '../admin/admin-harness.js';

/**
 * Issue 42, the fourth audit: every /admin call with Basic credentials the admin server accepts costs
 * admin-server calls (USE GRAPH, SHOW/CREATE/DROP SECRET), and the guess limits only count the refused
 * ones. So the accepted ones count per TigerGraph user (ADMIN_CREDENTIAL_BUDGET, the login budget's
 * engine, in Redis), before the admin server is asked, the user name exactly as TigerGraph authenticates it.
 * Before, one admin's credentials made unlimited calls.
 */
const BUDGET = 3;
// A second TigerGraph user whose name differs from alice's only in case: a principal of her own.
const CAPITAL_ALICE = { name: 'Alice', password: 'Alice-Pa55word-xyz', graphs: ['social'] };

describe('hostile client: one admin, many admin calls', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({
      label: 'admin-budget',
      sim: { users: [ALICE, CAPITAL_ALICE] },
      // The guess limits count checks in flight: raised here so only the budget can refuse the parallel calls.
      env: {
        ADMIN_ROUTES: 'true',
        ADMIN_CREDENTIAL_BUDGET: String(BUDGET),
        LOGIN_RATE_LIMIT: '50',
        LOGIN_BACKOFF_AFTER: '20',
        // Not a timeout test: counts in the shared Redis on a busy machine must not meet the 800 ms default (503).
        REDIS_COMMAND_TIMEOUT_MS: '4000',
      },
    });
  });
  afterAll(() => rig?.close());

  const list = (user: { name: string; password: string }, password = user.password) =>
    supertest(rig.service.app).get('/admin/secrets?graph=social').set('Authorization', basic(user.name, password));
  const asked = (name: string) => gsqlUsersSeen(rig.sim).filter((u) => u === name).length;

  it('when one user makes more accepted admin calls than ADMIN_CREDENTIAL_BUDGET at once, then the rest are 429 rate_limited with Retry-After and never reach the admin server', async () => {
    // Refused credentials are guesses (the guess limits count them), not the user's budget.
    expect((await list(ALICE, 'not-her-password')).status).toBe(401);
    expect((await list(ALICE, 'not-her-password')).status).toBe(401);

    // Counted before the admin server is asked: parallel calls cannot overrun the budget.
    const answers = await Promise.all(Array.from({ length: BUDGET + 3 }, () => list(ALICE)));
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([...Array<number>(BUDGET).fill(200), ...Array<number>(3).fill(429)]);
    const limited = answers.find((res) => res.status === 429)!;
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    const before = asked(ALICE.name);
    expect((await list(ALICE)).status).toBe(429);
    expect(asked(ALICE.name)).toBe(before);

    const metrics = await rig.service.metrics.registry.getSingleMetricAsString('tgbff_login_budget_limited_total');
    expect(metrics).toContain('tgbff_login_budget_limited_total{scope="admin_credential"} 4');
    expect(rig.audit()).toContain('"limit":"login_budget","scope":"credential","route":"admin"');
    expect(rig.logs()).not.toContain(ALICE.password);
  });

  it("when alice's budget is spent, then Alice, another TigerGraph user, keeps hers", async () => {
    expect((await list(ALICE)).status).toBe(429);
    expect((await list(CAPITAL_ALICE)).status).toBe(200);
  });
});
