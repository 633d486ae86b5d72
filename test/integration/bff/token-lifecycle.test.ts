import { startRig, type Rig } from '../../helpers/app-rig.js';
import { manualClock } from '../../helpers/clock.js';

describe('token refresh and replay through the app', () => {
  let rig: Rig;
  const clock = manualClock();
  beforeAll(async () => {
    rig = await startRig({ now: clock.now, env: { TG_TOKEN_LIFETIME: '1000', TOKEN_REFRESH_BEFORE: '100' } });
  });
  afterAll(() => rig.close());

  test('when a token comes within TOKEN_REFRESH_BEFORE of expiry, then it is refreshed by PUT to now + lifetime and never used expired', async () => {
    const agent = await rig.login();
    const counts = () => rig.sim.counts();
    const postsBefore = counts()['POST /requesttoken'] ?? 0;
    expect((await agent.get('/api/echo')).status).toBe(200);
    expect(counts()['PUT /requesttoken'] ?? 0).toBe(0);

    clock.advance(950_000); // 50 s left of 1000 s: due for refresh
    const res = await agent.get('/api/echo');
    expect(res.status).toBe(200);
    expect(counts()['PUT /requesttoken']).toBe(1);
    expect(counts()['POST /requesttoken'] ?? 0).toBe(postsBefore);
    const session = await agent.get('/auth/session');
    const expiresAt = Date.parse(session.body.tokenExpiresAt);
    expect(Math.abs(expiresAt - (clock.now() + 1_000_000))).toBeLessThan(5_000);

    clock.advance(500_000); // refreshed token is still valid: no further calls
    expect((await agent.get('/api/echo')).status).toBe(200);
    expect(counts()['PUT /requesttoken']).toBe(1);
    expect(rig.sim.seen().filter((r) => r.auth === 'expired')).toHaveLength(0);
  });

  test('when a token has already expired, then a new one is obtained before the request goes upstream', async () => {
    const agent = await rig.login();
    clock.advance(2_000_000);
    const res = await agent.get('/api/graph/social/vertices/Person');
    expect(res.status).toBe(200);
    expect(rig.sim.seen().filter((r) => r.auth === 'expired')).toHaveLength(0);
  });

  test('when the data server rejects a token we believed valid, then it is replaced once and the request replayed', async () => {
    const agent = await rig.login();
    await agent.get('/api/echo');
    const live = rig.sim.tokens().map((t) => t.token);
    const used = rig.sim
      .seen()
      .filter((r) => r.path === '/echo')
      .at(-1)!.headers.authorization as string;
    const token = used.replace('Bearer ', '');
    expect(live).toContain(token);
    rig.sim.revokeToken(token);
    const postsBefore = rig.sim.counts()['POST /requesttoken'] ?? 0;

    const res = await agent.post('/api/query/social/friends').send({ person: 'alice' });
    expect(res.status).toBe(200);
    expect(rig.sim.counts()['POST /requesttoken']).toBe(postsBefore + 1);
    const replays = rig.sim
      .seen()
      .filter((r) => r.path === '/query/social/friends')
      .slice(-2);
    expect(replays.map((r) => r.auth)).toEqual(['invalid', 'ok']);
    expect(replays.map((r) => r.bodyText)).toEqual([
      JSON.stringify({ person: 'alice' }),
      JSON.stringify({ person: 'alice' }),
    ]);
  });

  test('when the secret was dropped upstream, then the next request ends the session with 401 session_expired', async () => {
    const own = rig.sim.createSecret({ alias: 'to_drop' });
    const agent = await rig.login(own.value);
    await agent.get('/api/echo');
    // Drop the secret through the admin server, as an administrator would.
    const res = await fetch(`${rig.sim.gsqlUrl}/gsqlserver/gsql/file`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from('tigergraph:tigergraph').toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: encodeURIComponent('USE GRAPH social\nDROP SECRET to_drop'),
    });
    expect(await res.text()).toMatch(/Successfully dropped/);
    const after = await agent.get('/api/echo');
    expect(after.status).toBe(401);
    expect(['session_expired', 'token_rejected']).toContain(after.body.error.code);
  });
});

describe('session timeouts', () => {
  let rig: Rig;
  const clock = manualClock();
  beforeAll(async () => {
    rig = await startRig({ now: clock.now, env: { SESSION_IDLE_TIMEOUT: '60', SESSION_ABSOLUTE_TIMEOUT: '120' } });
  });
  afterAll(() => rig.close());

  test('when the absolute timeout has passed, then the session ends with 401 session_expired', async () => {
    const agent = await rig.login();
    expect((await agent.get('/api/echo')).status).toBe(200);
    clock.advance(121_000);
    const res = await agent.get('/api/echo');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('session_expired');
    expect((await agent.get('/auth/session')).status).toBe(401);
  });

  test('when the session is idle, then Redis expires it after SESSION_IDLE_TIMEOUT and activity slides it', async () => {
    const agent = await rig.login();
    const redis = rig.redis();
    const [key] = await redis.keys(`${rig.prefix}sess:*`);
    expect(await redis.pttl(key!)).toBeLessThanOrEqual(60_000);
    await redis.pexpire(key!, 5_000);
    await agent.get('/api/echo');
    expect(await redis.pttl(key!)).toBeGreaterThan(55_000);
  });

  test('when the stored secret was tampered with, then the request is a 401, never a 500', async () => {
    const agent = await rig.login();
    const redis = rig.redis();
    const keys = await redis.keys(`${rig.prefix}sess:*`);
    for (const key of keys) {
      const blob = JSON.parse((await redis.get(key))!);
      if (!blob.tg) continue;
      const sealed: string = blob.tg.secret;
      blob.tg.secret = sealed.slice(0, -4) + (sealed.endsWith('AAAA') ? 'BBBB' : 'AAAA');
      await redis.set(key, JSON.stringify(blob), 'KEEPTTL');
    }
    const res = await agent.get('/api/echo');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('not_authenticated');
  });
});
