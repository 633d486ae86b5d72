import supertest from 'supertest';
import { silentLogger } from '../../../src/observability/logger.js';
import { createService, type Service } from '../../../src/service.js';
import { CSRF, startRig, type Rig } from '../../helpers/app-rig.js';
import { testClock } from '../../helpers/clock.js';
import { until } from '../../helpers/wait.js';
import { scrape } from './prom-text.js';

const WAITS = 'tgbff_lease_waits_total';

describe('lease wait metrics when requests share one refresh', () => {
  let rig: Rig;
  let second: Service;
  const clock = testClock();
  beforeAll(async () => {
    rig = await startRig({ now: clock.now, env: { TG_TOKEN_LIFETIME: '1000', TOKEN_REFRESH_BEFORE: '100' } });
    // A second instance on the same Redis prefix and keys, as another replica would be.
    second = await createService({
      config: rig.config,
      upstream: { restppUrl: rig.sim.restppUrl, gsqlUrl: rig.sim.gsqlUrl, version: rig.sim.version },
      logger: silentLogger(),
      now: clock.now,
    });
  });
  afterAll(async () => {
    await second.close();
    await rig.close();
  });

  /** Resolves once some instance holds the session's refresh lease, i.e. the refresh is under way. */
  async function leaseTaken(): Promise<void> {
    const redis = rig.redis();
    await until('a refresh lease to be taken', async () => (await redis.keys(`${rig.prefix}lease:*`)).length > 0, {
      intervalMs: 5,
    });
  }

  test('when concurrent requests of one instance find the token due, then one refresh runs and the others count as waits', async () => {
    const agent = await rig.login();
    const putsBefore = rig.sim.counts()['PUT /requesttoken'] ?? 0;
    clock.advance(950_000);
    rig.sim.setFaults({ tokenLatencyMs: 1500 }); // keeps the refresh open while the others arrive
    try {
      const first = agent.get('/api/echo').then((r) => r.status);
      await leaseTaken();
      const others = await Promise.all(Array.from({ length: 4 }, () => agent.get('/api/echo').then((r) => r.status)));
      expect([await first, ...others]).toEqual([200, 200, 200, 200, 200]);
    } finally {
      rig.sim.setFaults({});
    }
    expect((rig.sim.counts()['PUT /requesttoken'] ?? 0) - putsBefore).toBe(1);
    const m = await scrape(rig.service.metricsApp);
    expect(m.sum(WAITS)).toBe(4);
    expect(m.value('tgbff_token_calls_total', { op: 'refresh', result: 'ok' })).toBe(1);
  });

  test('when another instance holds the refresh lease, then this one waits for its token instead of calling upstream', async () => {
    const agent = await rig.login();
    const cookie = agent.jar.getCookie(rig.config.session.cookieName, {
      domain: '127.0.0.1',
      path: '/',
      secure: false,
      script: false,
    });
    expect(cookie).toBeDefined();
    const putsBefore = rig.sim.counts()['PUT /requesttoken'] ?? 0;
    const waitsBefore = (await scrape(second.metricsApp)).sum(WAITS);
    clock.advance(950_000);
    rig.sim.setFaults({ tokenLatencyMs: 1500 });
    try {
      const first = agent.get('/api/echo').then((r) => r.status);
      await leaseTaken();
      const there = await supertest(second.app)
        .get('/api/echo')
        .set(CSRF)
        .set('Cookie', `${cookie!.name}=${cookie!.value}`);
      expect(there.status).toBe(200);
      expect(await first).toBe(200);
    } finally {
      rig.sim.setFaults({});
    }
    expect((rig.sim.counts()['PUT /requesttoken'] ?? 0) - putsBefore).toBe(1);
    const m = await scrape(second.metricsApp);
    expect(m.value(WAITS, { outcome: 'token' })).toBe(1);
    expect(m.sum(WAITS) - waitsBefore).toBe(1);
    expect(m.sum('tgbff_token_calls_total', { op: 'refresh' })).toBe(0);
  });
});
