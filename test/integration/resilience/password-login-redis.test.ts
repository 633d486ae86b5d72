import { Redis } from 'ioredis';
import supertest from 'supertest';
import { CSRF, startRig } from '../../helpers/app-rig.js';
import { startRedisServer } from '../../helpers/redis-server.js';
import { ALICE, dropsSeen, secretsOf, SIM_USERS } from '../admin/admin-harness.js';

describe('password login when Redis refuses to record the secret drop', () => {
  test('when the drop cannot be recorded in Redis, then login is 503 and the secret just created is dropped again', async () => {
    const server = await startRedisServer();
    const rig = await startRig({ sim: SIM_USERS, store: server.url, env: { PASSWORD_LOGIN: 'true' } });
    const admin = new Redis(server.url);
    try {
      // A real Redis refusing only ZADD: the rate limiter still works, recording the drop does not.
      await admin.call('ACL', 'SETUSER', 'default', '-zadd');
      const res = await supertest(rig.service.app)
        .post('/auth/login')
        .set(CSRF)
        .set('X-Forwarded-For', '10.0.0.1')
        .send({ username: ALICE.name, password: ALICE.password, graph: 'social' });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('store_unavailable');
      const statements = rig.sim.seen().map((r) => decodeURIComponent((r.bodyText ?? '').replace(/\+/g, ' ')));
      const made = statements.map((t) => /CREATE SECRET (tgbff_\w+)/.exec(t)?.[1]).find(Boolean);
      expect(made).toBeDefined();
      expect(dropsSeen(rig.sim, made!)).toBe(1);
      expect(await secretsOf(rig.sim, ALICE)).toEqual([]);
      expect(rig.sim.counts()['POST /requesttoken'] ?? 0).toBe(0);
    } finally {
      admin.disconnect();
      await rig.close();
      await server.stop();
    }
  });
});
