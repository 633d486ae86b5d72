import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import supertest from 'supertest';
import { CSRF, startRig, type Rig } from '../../helpers/app-rig.js';
import { scrape } from '../observability/prom-text.js';

interface Listed {
  id: string;
  current: boolean;
  login: string;
  graph: string | null;
  createdAt: string;
  lastSeenAt: string;
  client: string | null;
  address: string | null;
}

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const SAFARI_IOS =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

const listOf = async (agent: supertest.Agent): Promise<Listed[]> => {
  const res = await agent.get('/auth/sessions');
  expect(res.status).toBe(200);
  expect(res.headers['cache-control']).toBe('no-store');
  return (res.body as { sessions: Listed[] }).sessions;
};

/** Issue 40: a person's sessions, listed and ended (GET/DELETE /auth/sessions, logout everywhere), in process. */
describe.each(['redis', 'memory'] as const)('a person sees and ends their sessions (%s store)', (store) => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ store, env: { TRUST_PROXY: 'loopback' }, label: 'principal-sessions' });
  });
  afterAll(() => rig?.close());

  const loginAs = async (secret: string, ua: string, from: string): Promise<supertest.Agent> => {
    const agent = rig.agent().set('User-Agent', ua).set('X-Forwarded-For', from);
    const res = await agent.post('/auth/login').send({ secret, graph: 'social' });
    expect(res.status).toBe(200);
    return agent;
  };

  test('when one secret has three sessions, then each lists all three, newest first, its own marked current, with coarse client and address and never a session id', async () => {
    const { value } = rig.sim.createSecret({ alias: `list_${store}` });
    const a = await loginAs(value, FIREFOX, '198.51.100.23');
    const b = await loginAs(value, SAFARI_IOS, '2001:db8:abcd:12::7');
    const c = await loginAs(value, 'curl/8.5.0', '203.0.113.200');
    const fromA = await listOf(a);
    expect(fromA).toHaveLength(3);
    expect(fromA.map((s) => s.client)).toEqual(['curl', 'Safari on iOS', 'Firefox on Linux']);
    expect(fromA.map((s) => s.address)).toEqual(['203.0.113.0/24', '2001:db8:abcd::/48', '198.51.100.0/24']);
    expect(fromA.map((s) => s.current)).toEqual([false, false, true]);
    for (const s of fromA) {
      expect(s).toMatchObject({ login: 'secret', graph: 'social' });
      expect(s.id).toMatch(/^[A-Za-z0-9_-]{16}$/);
      expect(Date.parse(s.lastSeenAt)).toBeGreaterThanOrEqual(Date.parse(s.createdAt));
    }
    // The handles never are, nor contain, a cookie's session id.
    const cookies = [a, b, c].map((agent) =>
      JSON.stringify(agent.jar.getCookies({ path: '/', domain: '127.0.0.1', secure: false, script: false })),
    );
    for (const s of fromA) for (const jar of cookies) expect(jar).not.toContain(s.id);
    expect((await listOf(c)).map((s) => s.current)).toEqual([true, false, false]);
  });

  test('when a session is ended by its handle from another, then it is 401 session_ended, the handle replayed is 404, and another person cannot end it', async () => {
    const mine = rig.sim.createSecret({ alias: `end_${store}` }).value;
    const theirs = rig.sim.createSecret({ alias: `other_${store}` }).value;
    const a = await loginAs(mine, FIREFOX, '198.51.100.1');
    const b = await loginAs(mine, FIREFOX, '198.51.100.2');
    const stranger = await loginAs(theirs, FIREFOX, '198.51.100.3');
    const handleOfB = (await listOf(a)).find((s) => !s.current)!.id;

    // Another person's handle is answered exactly as one that does not exist.
    const foreign = await stranger.delete(`/auth/sessions/${handleOfB}`);
    const madeUp = await stranger.delete('/auth/sessions/AAAAAAAAAAAAAAAA');
    const malformed = await stranger.delete('/auth/sessions/not-a-handle');
    for (const res of [foreign, madeUp, malformed]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(madeUp.body);
    }
    expect(madeUp.body.error.code).toBe('session_not_found');
    expect((await b.get('/auth/session')).status).toBe(200);

    // Without the CSRF header the DELETE is refused before anything ends.
    const noCsrf = await supertest(rig.service.app)
      .delete(`/auth/sessions/${handleOfB}`)
      .set(
        'Cookie',
        a.jar.getCookies({ path: '/', domain: '127.0.0.1', secure: false, script: false }).toValueString(),
      );
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.error.code).toBe('csrf_rejected');
    expect((await b.get('/auth/session')).status).toBe(200);

    const endedBefore = (await scrape(rig.service.metricsApp)).value('tgbff_sessions_ended_total', { reason: 'ended' });
    expect((await a.delete(`/auth/sessions/${handleOfB}`)).status).toBe(204);
    const refused = await b.get('/auth/session');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('session_ended');
    expect((await b.get('/api/echo')).body.error.code).toBe('session_ended');
    const replay = await a.delete(`/auth/sessions/${handleOfB}`);
    expect(replay.status).toBe(404);
    expect(replay.body).toEqual(madeUp.body);
    expect((await listOf(a)).map((s) => s.current)).toEqual([true]);
    expect((await stranger.get('/auth/session')).status).toBe(200);
    // Counted once, as an end by the person; the refused and replayed DELETEs count nothing.
    const metrics = await scrape(rig.service.metricsApp);
    expect(metrics.value('tgbff_sessions_ended_total', { reason: 'ended' }) - endedBefore).toBe(1);
    expect(metrics.value('tgbff_sessions_ended_total', { reason: 'operator' })).toBe(0);
    // Audited: who ended what, by keyed hashes only.
    const ended = rig
      .audit()
      .split('\n')
      .filter((l) => l.includes('"reason":"ended"'))
      .map((l) => JSON.parse(l) as { session: string; by: { session: string } });
    expect(ended.some((e) => e.session === handleOfB)).toBe(true);
  });

  test('when a person ends all but the current, then only the current lives; logout everywhere then ends that one too', async () => {
    const value = rig.sim.createSecret({ alias: `all_${store}` }).value;
    const agents = [];
    for (let i = 0; i < 4; i++) agents.push(await loginAs(value, FIREFOX, `198.51.100.${10 + i}`));
    const [first, ...rest] = agents as [supertest.Agent, ...supertest.Agent[]];
    const res = await first.delete('/auth/sessions');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ended: 3 });
    for (const agent of rest) expect((await agent.get('/auth/session')).body.error.code).toBe('session_ended');
    expect((await listOf(first)).map((s) => s.current)).toEqual([true]);

    const again = [await loginAs(value, FIREFOX, '198.51.100.20'), await loginAs(value, FIREFOX, '198.51.100.21')];
    const out = await first.post('/auth/logout').send({ everywhere: true });
    expect(out.status).toBe(204);
    for (const agent of [first, ...again]) expect((await agent.get('/auth/session')).status).toBe(401);
    expect((await again[0]!.get('/auth/session')).body.error.code).toBe('session_ended');
  });

  test('when logout has a body that is not {"everywhere": boolean}, then it is 400 naming the field, and plain logout still works', async () => {
    const agent = await rig.login();
    const bad = await agent.post('/auth/logout').send({ everywhere: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^everywhere: /);
    expect((await agent.post('/auth/logout')).status).toBe(204);
    expect((await agent.get('/auth/session')).body.error.code).toBe('not_authenticated');
  });

  test('when logout’s body is refused (bad field, not JSON, too large), then the answer names it, the cookie is cleared and this session ends too, so a copy of the cookie is refused', async () => {
    const { value } = rig.sim.createSecret({ alias: `refused_logout_${store}` });
    const app = () => supertest(rig.service.app);
    const cases: Array<[string, (r: supertest.Test) => supertest.Test, number]> = [
      ['a bad field', (r) => r.send({ everywhere: 'yes' }), 400],
      ['not JSON', (r) => r.set('Content-Type', 'application/json').send('{"everywhere":'), 400],
      ['too large', (r) => r.send({ everywhere: true, pad: 'x'.repeat(4096) }), 413],
    ];
    for (const [what, send, status] of cases) {
      const login = await app().post('/auth/login').set(CSRF).send({ secret: value, graph: 'social' });
      expect(login.status).toBe(200);
      const cookie = String(login.headers['set-cookie']?.[0]).split(';')[0]!;
      const other = await app().post('/auth/login').set(CSRF).send({ secret: value, graph: 'social' });
      const otherCookie = String(other.headers['set-cookie']?.[0]).split(';')[0]!;
      // Set-up holds: the session is live before the logout.
      expect((await app().get('/auth/session').set('Cookie', cookie)).status).toBe(200);

      const refused = await send(app().post('/auth/logout').set(CSRF).set('Cookie', cookie));
      expect([what, refused.status]).toEqual([what, status]);
      expect(typeof refused.body.error.code).toBe('string');
      expect(String(refused.headers['set-cookie'])).toMatch(/Expires=Thu, 01 Jan 1970/);
      // Ended, not only forgotten by this browser: a copy of the cookie no longer works.
      const copy = await app().get('/auth/session').set('Cookie', cookie);
      expect([what, copy.status]).toEqual([what, 401]);
      // "everywhere" was not done: the person's other session lives.
      expect((await app().get('/auth/session').set('Cookie', otherCookie)).status).toBe(200);
    }
  });
});

/**
 * Issue 40, item 4: the cap on each store. SESSIONS_PER_CREDENTIAL=1 is one session per person; with 2 a
 * third login ends the oldest. The ended one is told why, on the memory store as on Redis.
 */
describe.each([
  ['redis', 1],
  ['memory', 1],
  ['memory', 2],
] as const)('the session cap (%s store, SESSIONS_PER_CREDENTIAL=%d)', (store, cap) => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ store, env: { SESSIONS_PER_CREDENTIAL: String(cap) }, label: 'session-cap' });
  });
  afterAll(() => rig?.close());

  test('when a person logs in once more than the cap, then the oldest session answers 401 session_ended naming the newer login, the others live, and the list holds the cap', async () => {
    const { value } = rig.sim.createSecret({ alias: `cap_${store}_${cap}` });
    const agents: supertest.Agent[] = [];
    for (let i = 0; i <= cap; i++) agents.push(await rig.login(value));
    const [oldest, ...rest] = agents as [supertest.Agent, ...supertest.Agent[]];
    for (const path of ['/auth/session', '/api/echo']) {
      const res = await oldest.get(path);
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ code: 'session_ended', message: expect.stringMatching(/newer login/) });
    }
    for (const agent of rest) expect((await agent.get('/auth/session')).status).toBe(200);
    expect((await listOf(rest.at(-1)!)).map((s) => s.current)).toEqual([true, ...Array<boolean>(cap - 1).fill(false)]);
    const metrics = await scrape(rig.service.metricsApp);
    expect(metrics.value('tgbff_sessions_evicted_total', { login: 'secret' })).toBe(1);
    expect(metrics.value('tgbff_sessions_ended_total', { reason: 'evicted' })).toBe(1);
  });
});
