import { Redis } from 'ioredis';
import supertest from 'supertest';
import { CSRF, startRig, type Rig } from '../../helpers/app-rig.js';
import { parseSetCookie, sidOf } from '../../helpers/cookies.js';
import { sessionKey } from '../../helpers/redis-prefix.js';

describe('login, session and logout', () => {
  let rig: Rig;
  let redis: Redis;
  beforeAll(async () => {
    rig = await startRig({ env: { LOGIN_RATE_LIMIT: '1000' } });
    redis = rig.redis();
  });
  afterAll(() => rig.close());

  const sidOfAnswer = (res: supertest.Response): string => sidOf(String(res.headers['set-cookie']?.[0]));

  test('when the secret works, then login answers who is logged in and nothing secret', async () => {
    const agent = rig.agent();
    const res = await agent.post('/auth/login').send({ secret: rig.secret, graph: 'social' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ authenticated: true, graph: 'social', tokenExpiresAt: expect.any(String) });
    const [token] = rig.sim
      .tokens()
      .map((t) => t.token)
      .slice(-1);
    expect(JSON.stringify(res.body)).not.toContain(rig.secret);
    expect(JSON.stringify(res.headers)).not.toContain(token!);
    expect(JSON.stringify(res.headers)).not.toContain(rig.secret);
    // TG_TOKEN_LIFETIME defaults to SESSION_ABSOLUTE_TIMEOUT (12 h): the token lasts as long as the session can.
    expect(Math.abs(Date.parse(res.body.tokenExpiresAt) - (Date.now() + 43_200_000))).toBeLessThan(5_000);
  });

  test('when logged in, then the session keys exist in Redis with TTLs and hold no secret or token in clear', async () => {
    const agent = rig.agent();
    const res = await agent.post('/auth/login').send({ secret: rig.secret });
    const sid = sidOfAnswer(res);
    const sessKey = sessionKey(rig.prefix, sid);
    const tokKey = `${rig.prefix}tok:{${sid}}`;
    const sess = await redis.get(sessKey);
    const tok = JSON.stringify(await redis.hgetall(tokKey));
    expect(sess).not.toBeNull();
    expect(tok).not.toBe('{}');
    const tokens = rig.sim.tokens().map((t) => t.token);
    for (const value of [sess!, tok]) {
      expect(value).not.toContain(rig.secret);
      for (const t of tokens) expect(value).not.toContain(t);
    }
    const sessTtl = await redis.pttl(sessKey);
    expect(sessTtl).toBeGreaterThan(0);
    expect(sessTtl).toBeLessThanOrEqual(rig.config.session.idleTimeoutSeconds * 1000);
    expect(await redis.pttl(tokKey)).toBeGreaterThan(0);
  });

  test('when logged in, then GET /auth/session describes the session without a token or secret', async () => {
    const agent = await rig.login();
    const res = await agent.get('/auth/session');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      authenticated: true,
      graph: 'social',
      login: 'secret',
      tokenExpiresAt: expect.any(String),
      sessionExpiresAt: expect.any(String),
    });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  test('when not logged in, then GET /auth/session is a JSON 401 not_authenticated', async () => {
    const res = await supertest(rig.service.app).get('/auth/session').set(CSRF);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('not_authenticated');
  });

  test('when the secret is wrong, then login is 401 invalid_credentials and sets no cookie', async () => {
    const res = await supertest(rig.service.app)
      .post('/auth/login')
      .set(CSRF)
      .set('X-Forwarded-For', '10.9.9.1')
      .send({ secret: 'nottherightsecret0000000000000000' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_credentials');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toContain('nottherightsecret');
  });

  test.each([
    ['no body', undefined],
    ['a secret that is not a string', { secret: 42 }],
    ['an empty secret', { secret: '' }],
    ['a bad graph name', { secret: 'abc', graph: '../x' }],
    ['an array', [1, 2]],
  ])('when the body has %s, then login is 400 invalid_request', async (_name, body) => {
    const req = supertest(rig.service.app).post('/auth/login').set(CSRF);
    const res = body === undefined ? await req : await req.send(body as object);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
  });

  test('when the body is not JSON, then login is 400 with a JSON error', async () => {
    const res = await supertest(rig.service.app)
      .post('/auth/login')
      .set(CSRF)
      .set('Content-Type', 'application/json')
      .send('{bad');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
  });

  test('when a session logs out, then the token is deleted upstream, the cookie cleared and the session stays dead', async () => {
    const agent = rig.agent();
    const login = await agent.post('/auth/login').send({ secret: rig.secret });
    const sid = sidOfAnswer(login);
    const cookie = String(login.headers['set-cookie']?.[0]).split(';')[0]!;
    const before = rig.sim.counts()['DELETE /requesttoken'] ?? 0;
    const tokensBefore = rig.sim.tokens().length;
    const res = await agent.post('/auth/logout');
    expect(res.status).toBe(204);
    const cleared = parseSetCookie(String(res.headers['set-cookie']?.[0]));
    expect(cleared.value).toBe('');
    expect(new Date(String(cleared.attributes.expires)).getTime()).toBeLessThan(Date.now());
    expect(rig.sim.counts()['DELETE /requesttoken']).toBe(before + 1);
    expect(rig.sim.tokens().length).toBe(tokensBefore - 1);
    expect(await redis.exists(sessionKey(rig.prefix, sid), `${rig.prefix}tok:{${sid}}`)).toBe(0);
    expect(await redis.exists(`${rig.prefix}dead:{${sid}}`)).toBe(1);
    // The old cookie replayed by hand gets nowhere.
    const again = await supertest(rig.service.app).get('/api/echo').set(CSRF).set('Cookie', cookie);
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('not_authenticated');
  });

  test('when nobody is logged in, then logout is still 204', async () => {
    const res = await supertest(rig.service.app).post('/auth/logout').set(CSRF);
    expect(res.status).toBe(204);
  });

  test('when a second login happens on the same browser, then the session id changes (no fixation)', async () => {
    const agent = rig.agent();
    const first = await agent.post('/auth/login').send({ secret: rig.secret });
    const second = await agent.post('/auth/login').send({ secret: rig.secret });
    expect(sidOfAnswer(first)).not.toBe(sidOfAnswer(second));
    expect(await redis.exists(sessionKey(rig.prefix, sidOfAnswer(first)))).toBe(0);
  });
});

describe('login rate limit', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ env: { LOGIN_RATE_LIMIT: '5', LOGIN_RATE_WINDOW: '60' } });
  });
  afterAll(() => rig.close());

  test('when one address fails too often, then login is 429 rate_limited with Retry-After', async () => {
    const app = rig.service.app;
    const attempt = () => supertest(app).post('/auth/login').set(CSRF).send({ secret: 'wrongwrongwrongwrong' });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await attempt()).status);
    expect(statuses.slice(0, 5).every((s) => s === 401 || s === 429)).toBe(true);
    const res = await attempt();
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limited');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('the session cookie', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ env: { COOKIE_SECURE: 'true', TRUST_PROXY: '1' } });
  });
  afterAll(() => rig.close());

  test('when COOKIE_SECURE is on, then the cookie is __Host-tgbff; HttpOnly; Secure; SameSite=Strict; Path=/ without Domain', async () => {
    const res = await supertest(rig.service.app)
      .post('/auth/login')
      .set(CSRF)
      .set('X-Forwarded-Proto', 'https')
      .send({ secret: rig.secret });
    expect(res.status).toBe(200);
    const raw = res.headers['set-cookie'] as unknown as string[];
    expect(raw).toHaveLength(1);
    const cookie = parseSetCookie(raw[0]!);
    expect(cookie.name).toBe('__Host-tgbff');
    expect(cookie.attributes).toEqual({ path: '/', httponly: true, secure: true, samesite: 'Strict' });
    // The value is only a signed opaque id.
    expect(decodeURIComponent(cookie.value)).toMatch(/^s:[A-Za-z0-9_-]+\.[A-Za-z0-9+/=_-]+$/);
  });

  test('when the request did not arrive over https, then login refuses with 403 https_required instead of silently setting no cookie', async () => {
    // A LAN name: only loopback names count as secure over plain http (see loopback-cookie.test.ts).
    const res = await supertest(rig.service.app)
      .post('/auth/login')
      .set(CSRF)
      .set('Host', 'bff.lan:8080')
      .send({ secret: rig.secret });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('https_required');
    expect(res.headers['set-cookie']).toBeUndefined();
  });
});
