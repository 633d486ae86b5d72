import type { Redis } from 'ioredis';
import { createCipher, sealedAs } from '../../../src/crypto/crypto.js';
import { maskSecret } from '../../../packages/client/src/errors.js';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { sidOf } from '../../helpers/cookies.js';
import { ALICE, dropsSeen, everythingStored, gsqlUsersSeen, secretsOf, SIM_USERS } from './admin-harness.js';
import { sessionKey } from '../../helpers/redis-prefix.js';

describe('password login end to end (3.x, Redis)', () => {
  let rig: Rig;
  let redis: Redis;
  beforeAll(async () => {
    rig = await startRig({ sim: SIM_USERS, env: { PASSWORD_LOGIN: 'true', LOGIN_RATE_LIMIT: '1000' } });
    redis = rig.redis();
  });
  afterAll(() => rig.close());

  const login = async () => {
    const agent = rig.agent();
    const res = await agent
      .post('/auth/login')
      .send({ username: ALICE.name, password: ALICE.password, graph: 'social' });
    return { agent, res };
  };

  test('when alice logs in with her password, then a tgbff_ secret is created as her and the session works for /api', async () => {
    const before = (await secretsOf(rig.sim, ALICE)).map((s) => s.alias);
    const { agent, res } = await login();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ authenticated: true, graph: 'social', tokenExpiresAt: expect.any(String) });

    const created = (await secretsOf(rig.sim, ALICE)).filter((s) => !before.includes(s.alias));
    expect(created).toHaveLength(1);
    expect(created[0]!.alias).toMatch(/^tgbff_[0-9a-f]{16}$/);
    expect(created[0]!.graph).toBe('social');
    // The token the session holds was minted with that secret.
    expect(rig.sim.tokens().some((t) => t.secretAlias === created[0]!.alias)).toBe(true);

    const session = await agent.get('/auth/session');
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ authenticated: true, graph: 'social', username: 'alice' });
    const echo = await agent.get('/api/echo');
    expect(echo.status).toBe(200);
    expect(echo.body.message).toBe('Hello GSQL');
  });

  test('when alice logs in, then neither her password nor the clear secret is in Redis, the logs or the answer', async () => {
    const { res } = await login();
    expect(res.status).toBe(200);
    const sid = sidOf(String(res.headers['set-cookie']?.[0]));
    const stored = await everythingStored(redis, rig.prefix);
    expect(stored).toContain(`sess:{${sid}}`);
    expect(stored).toContain('secret-drops');
    // The session holds the secret sealed; opening it with the service's keys proves which secret it is.
    const tg = JSON.parse((await redis.get(sessionKey(rig.prefix, sid)))!).tg;
    const secret = createCipher([...rig.config.session.encryptionKeys]).decrypt(tg.secret, sealedAs.sessionSecret(sid));
    const upstream = (await secretsOf(rig.sim, ALICE)).find((s) => s.alias === tg.secretAlias);
    expect(upstream?.secret).toBe(maskSecret(secret));
    const seen = stored + rig.logs() + JSON.stringify(res.body) + JSON.stringify(res.headers);
    expect(seen).not.toContain(ALICE.password);
    expect(seen).not.toContain(secret);
  });

  test("when alice logs in, then the drop is due at the session's absolute end", async () => {
    const t0 = Date.now();
    const { res } = await login();
    expect(res.status).toBe(200);
    const alias = rig.sim.tokens().at(-1)!.secretAlias;
    const entries = await redis.zrange(`${rig.prefix}secret-drops`, 0, -1, 'WITHSCORES');
    const index = entries.findIndex((member, i) => i % 2 === 0 && JSON.parse(member)[0] === alias);
    expect(index).toBeGreaterThanOrEqual(0);
    const due = Number(entries[index + 1]);
    const absoluteMs = rig.config.session.absoluteTimeoutSeconds * 1000;
    expect(due).toBeGreaterThanOrEqual(t0 + absoluteMs);
    expect(due).toBeLessThanOrEqual(Date.now() + absoluteMs);
  });

  test('when alice logs out, then the token and the secret are dropped upstream as the secret itself and the entry is gone', async () => {
    const { agent, res } = await login();
    expect(res.status).toBe(200);
    const alias = rig.sim.tokens().at(-1)!.secretAlias;
    const usersBefore = gsqlUsersSeen(rig.sim).length;
    const out = await agent.post('/auth/logout');
    expect(out.status).toBe(204);
    expect((await secretsOf(rig.sim, ALICE)).map((s) => s.alias)).not.toContain(alias);
    expect(dropsSeen(rig.sim, alias)).toBe(1);
    // The drop logged in with the secret (the password is not kept anywhere).
    expect(gsqlUsersSeen(rig.sim).slice(usersBefore)).toContain('__GSQL__secret');
    const members = await redis.zrange(`${rig.prefix}secret-drops`, 0, -1);
    expect(members.some((m) => JSON.parse(m)[0] === alias)).toBe(false);
    const again = await agent.get('/api/echo');
    expect(again.status).toBe(401);
  });

  test("when a password session logs in again, then the first session's secret is dropped", async () => {
    const { agent, res } = await login();
    expect(res.status).toBe(200);
    const first = rig.sim.tokens().at(-1)!.secretAlias;
    const second = await agent
      .post('/auth/login')
      .send({ username: ALICE.name, password: ALICE.password, graph: 'social' });
    expect(second.status).toBe(200);
    const aliases = (await secretsOf(rig.sim, ALICE)).map((s) => s.alias);
    expect(aliases).not.toContain(first);
    expect(aliases).toContain(rig.sim.tokens().at(-1)!.secretAlias);
  });
});
