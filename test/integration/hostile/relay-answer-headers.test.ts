import { request } from 'undici';
import { HOSTILE_ANSWER_HEADERS, startHostileRig, type HostileRig } from './hostile-rig.js';

/**
 * Issue 21, item 7: relay answers by allowlist. The stand-in data server answers a relayed GET with every
 * header that could take over the BFF's origin in the browser (cookies, Clear-Site-Data, Refresh, Location,
 * Alt-Svc, WWW-Authenticate, HSTS max-age=0 over http, CSP, CORS, …) through a real service process.
 */
describe('relay answer headers by allowlist (real process)', () => {
  let rig: HostileRig;
  let widened: HostileRig;
  beforeAll(async () => {
    [rig, widened] = await Promise.all([
      startHostileRig('answer-headers'),
      startHostileRig('answer-headers-wide', { RELAY_RESPONSE_HEADERS: 'Server, X-Powered-By' }),
    ]);
  });
  afterAll(async () => {
    await rig?.close();
    await widened?.close();
  });

  async function relayed(
    r: HostileRig,
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
    const cookie = await r.login();
    const res = await request(`${r.bff.url}/api/query/social/headers`, {
      headers: { cookie, 'x-requested-with': 'XMLHttpRequest' },
    });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  }

  it('when the data server answers with cookie, navigation, origin-clearing, auth-prompt, HSTS, CSP, CORS and server headers, then the browser gets none of them', async () => {
    const answer = await relayed(rig);
    expect(answer.status).toBe(200);
    const passed = Object.keys(HOSTILE_ANSWER_HEADERS).filter(
      (name) => answer.headers[name] !== undefined && answer.headers[name] === HOSTILE_ANSWER_HEADERS[name],
    );
    expect(passed.sort()).toEqual(['content-disposition', 'content-type']);
    // The relay's own caching answer stands (issue 42): one user's data is never kept by a shared cache.
    expect(answer.headers['cache-control']).toBe('private, no-store');
    for (const name of [
      'set-cookie',
      'clear-site-data',
      'refresh',
      'location',
      'alt-svc',
      'www-authenticate',
      'proxy-authenticate',
      'strict-transport-security',
      'server',
      'link',
      'report-to',
      'x-powered-by',
      'access-control-allow-origin',
      'access-control-allow-credentials',
    ]) {
      expect([name, answer.headers[name]]).toEqual([name, undefined]);
    }
    // The BFF's own security headers stand, not the data server's.
    expect(answer.headers['content-security-policy']).not.toBe(HOSTILE_ANSWER_HEADERS['content-security-policy']);
    expect(answer.headers['x-frame-options']).toBe('SAMEORIGIN');
  });

  it('when RELAY_RESPONSE_HEADERS names more headers, then those pass too and the dangerous ones still do not', async () => {
    const answer = await relayed(widened);
    expect(answer.headers.server).toBe(HOSTILE_ANSWER_HEADERS.server);
    expect(answer.headers['x-powered-by']).toBe('Express');
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect(answer.headers['clear-site-data']).toBeUndefined();
    expect(answer.headers.location).toBeUndefined();
  });
});
