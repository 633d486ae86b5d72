import supertest from 'supertest';
import { CSRF, startRig, type Rig } from '../../helpers/app-rig.js';
import { isLoopbackAddress, isLoopbackHost } from '../../../src/http/pipeline/loopback-secure.js';
import { loadConfig } from '../../../src/config.js';

// Browsers treat http://localhost as a secure context and keep Secure (and __Host-) cookies there, so
// development on loopback keeps the hardened cookie. Everywhere else nothing gets weaker.
describe('a Secure cookie over plain http on loopback, outside production', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ env: { COOKIE_SECURE: 'true' } });
  });
  afterAll(() => rig.close());

  const login = (host: string, headers: Record<string, string> = {}) =>
    supertest(rig.service.app)
      .post('/auth/login')
      .set(CSRF)
      .set('Host', host)
      .set(headers)
      .send({ secret: rig.secret });

  test.each(['localhost:8080', '127.0.0.1:8080', '[::1]:8080', 'app.localhost:8080'])(
    'when a browser on this machine logs in at http://%s, then it gets the Secure __Host- cookie',
    async (host) => {
      const res = await login(host);
      expect(res.status).toBe(200);
      const cookie = (res.headers['set-cookie'] as unknown as string[])[0]!;
      expect(cookie).toMatch(/^__Host-tgbff=/);
      expect(cookie).toMatch(/; Secure/);
      expect(cookie).toMatch(/; HttpOnly/);
      expect(cookie).toMatch(/; SameSite=Strict/);
    },
  );

  test('when the same machine is reached by a LAN name over http, then login is refused and the message names the fixes', async () => {
    const res = await login('192.168.1.20:8080');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('https_required');
    expect(res.body.error.message).toMatch(/http:\/\/localhost:\d+\//);
    expect(res.body.error.message).toMatch(/COOKIE_SECURE=false/);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  test('when an untrusted proxy says X-Forwarded-Proto, then the message names TRUST_PROXY', async () => {
    const res = await login('bff.example.com', { 'X-Forwarded-Proto': 'https' });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/TRUST_PROXY/);
  });
});

describe('in production', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({
      env: {
        NODE_ENV: 'production',
        COOKIE_SECURE: 'true',
        SESSION_SECRET: 'a'.repeat(40),
        SESSION_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
      },
    });
  });
  afterAll(() => rig.close());

  test('when a login comes over plain http even from localhost, then it is refused: loopback earns nothing in production', async () => {
    const res = await supertest(rig.service.app)
      .post('/auth/login')
      .set(CSRF)
      .set('Host', 'localhost:8080')
      .send({ secret: rig.secret });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('https_required');
    expect(res.body.error.message).not.toMatch(/COOKIE_SECURE=false/);
  });
});

test('when COOKIE_SECURE is false or NODE_ENV is production, then loopback is not treated as secure', () => {
  const base = {
    SESSION_SECRET: 'a'.repeat(40),
    SESSION_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
    TG_RESTPP_URL: 'http://127.0.0.1:9000',
    REDIS_URL: 'redis://127.0.0.1:6379',
  };
  expect(loadConfig({ ...base, NODE_ENV: 'development' }).session.loopbackIsSecure).toBe(true);
  expect(loadConfig({ ...base, NODE_ENV: 'development', COOKIE_SECURE: 'false' }).session.loopbackIsSecure).toBe(false);
  expect(loadConfig({ ...base, NODE_ENV: 'production' }).session.loopbackIsSecure).toBe(false);
});

test('when names and addresses are spelled oddly, then only real loopback counts', () => {
  for (const yes of ['localhost', 'LOCALHOST', 'localhost.', 'a.localhost', '127.0.0.1', '127.9.9.9', '[::1]', '::1'])
    expect(isLoopbackHost(yes)).toBe(true);
  for (const no of ['localhost.evil.com', 'evillocalhost', '10.0.0.1', '128.0.0.1', '', '::2', '0.0.0.0'])
    expect(isLoopbackHost(no)).toBe(false);
  for (const yes of ['127.0.0.1', '::ffff:127.0.0.1', '::1']) expect(isLoopbackAddress(yes)).toBe(true);
  for (const no of ['10.1.2.3', '::ffff:10.1.2.3', '::', 'localhost']) expect(isLoopbackAddress(no)).toBe(false);
});
