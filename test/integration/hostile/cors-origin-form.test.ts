import { startGuardRig, type GuardRig } from './guard-rig.js';
import { rawRequest } from '../../helpers/raw-request.js';

const XRW = { 'x-requested-with': 'XMLHttpRequest' };
const ODD_SPELLING = 'HTTPS://App.Example.com:443';

describe('CORS and the CSRF origin check compare serialized origins (a real service process)', () => {
  let rig: GuardRig;
  beforeAll(async () => {
    rig = await startGuardRig('cors-origin', { ALLOWED_ORIGINS: 'https://app.example.com' });
  });
  afterAll(() => rig?.close());

  test.each([
    [ODD_SPELLING, 'https://app.example.com'],
    ['https://app.example.com', 'https://app.example.com'],
  ])(
    'when a preflight comes from %s, then it is allowed and the answer echoes %s, the configured spelling',
    async (origin, echoed) => {
      const res = await rawRequest(rig.bff.url, '/api/echo', {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'x-requested-with',
        },
      });
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(echoed);
      expect(res.headers['access-control-allow-credentials']).toBe('true');
    },
  );

  test("when a credentialed read comes from the odd spelling, then the answer echoes the configured spelling, never the caller's bytes", async () => {
    const cookie = await rig.login();
    const res = await rawRequest(rig.bff.url, '/auth/session', { headers: { origin: ODD_SPELLING, cookie } });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(res.headers['vary']).toContain('Origin');
  });

  test('when a state change comes from the odd spelling of a listed origin, then the CSRF check accepts it as that origin', async () => {
    const cookie = await rig.login();
    const res = await rawRequest(rig.bff.url, '/auth/logout', {
      method: 'POST',
      headers: { ...XRW, origin: ODD_SPELLING, cookie },
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect((await rawRequest(rig.bff.url, '/auth/session', { headers: { cookie } })).code).toBe('not_authenticated');
  });

  test.each([
    'https://app.example.com.evil.com',
    'null',
    'https://app.example.com:8443',
    'http://app.example.com',
    'https://evil.com/https://app.example.com',
  ])(
    'when the Origin is %s, then CORS grants nothing, a state change is refused 403 csrf_rejected and the session lives',
    async (origin) => {
      const cookie = await rig.login();
      const preflight = await rawRequest(rig.bff.url, '/api/echo', {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      const res = await rawRequest(rig.bff.url, '/auth/logout', {
        method: 'POST',
        headers: { ...XRW, origin, cookie },
      });
      expect(res.status).toBe(403);
      expect(res.code).toBe('csrf_rejected');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect((await rawRequest(rig.bff.url, '/auth/session', { headers: { cookie } })).status).toBe(200);
    },
  );
});

describe('ALLOWED_ORIGINS written in an odd spelling (a real service process)', () => {
  let rig: GuardRig;
  beforeAll(async () => {
    rig = await startGuardRig('cors-origin-config', { ALLOWED_ORIGINS: 'HTTP://Tools.Example.com:80/' });
  });
  afterAll(() => rig?.close());

  test('when the entry has upper case, a default port and a trailing slash, then it starts, matches the browser form and echoes the serialized form', async () => {
    const res = await rawRequest(rig.bff.url, '/api/echo', {
      method: 'OPTIONS',
      headers: { origin: 'http://tools.example.com', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('http://tools.example.com');
  });
});
