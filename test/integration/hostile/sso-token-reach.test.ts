import { Redis } from 'ioredis';
import supertest from 'supertest';
import { createCipher, parseEncryptionKeys, sealedAs } from '../../../src/crypto/crypto.js';
import { startTestIdp, type TestIdp } from '../../helpers/oidc-provider.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { startOutcome } from '../../helpers/start-outcome.js';
import {
  CSRF,
  REDIRECT_URI,
  cookiePair,
  dropPrefix,
  idpLogin,
  newPrefix,
  setCookies,
  sessionCookieOf,
  startCountingUpstream,
  type CountingUpstream,
} from '../oidc/sso-rig.js';

/**
 * Issue 21, item 5: no IdP token (ID, access, refresh) reaches page JavaScript, and an ID token is never a
 * bearer. A real service process with single sign-on; every answer a page script can read (fetch/XHR to the
 * service: status, headers, body) is searched for each of the session's three IdP tokens, which the test
 * learns by opening the sealed values in Redis with the service's key.
 */
const KEYS = 'k1:lokNLBEwutawgBgZJ0MPtswLlSG6Bsf4WPnKs70nSVg=';

interface Seen {
  what: string;
  text: string;
}
const seenOf = (what: string, res: supertest.Response): Seen => ({
  what,
  text: `${res.status}\n${JSON.stringify(res.headers)}\n${res.text ?? ''}`,
});

describe('single sign-on: the IdP tokens stay out of page scripts (real process)', () => {
  let idp: TestIdp;
  let upstream: CountingUpstream;
  let service: ServiceProcess;
  const prefix = newPrefix();
  const baseEnv = (idpNow: TestIdp, up: string): Record<string, string> => ({
    NODE_ENV: 'test',
    TG_RESTPP_URL: up,
    TG_VERSION: '3.11.0',
    REDIS_URL: 'redis://127.0.0.1:6379',
    REDIS_PREFIX: prefix,
    SESSION_SECRET: 'a-session-secret-for-the-token-reach-test-0123456789',
    SESSION_ENCRYPTION_KEYS: KEYS,
    COOKIE_SECURE: 'false',
    OIDC_ISSUER: idpNow.issuer,
    OIDC_CLIENT_ID: idpNow.clientId,
    OIDC_CLIENT_SECRET: idpNow.clientSecret,
    OIDC_REDIRECT_URI: REDIRECT_URI,
  });

  beforeAll(async () => {
    idp = await startTestIdp({
      redirectUris: [REDIRECT_URI],
      postLogoutRedirectUris: ['http://bff.test/'],
      accessClaims: { graph: 'social' },
    });
    upstream = await startCountingUpstream();
    service = await startServiceProcess({ ...baseEnv(idp, upstream.url), OIDC_AUDIENCE: idp.audience });
  });
  afterAll(async () => {
    await service?.stop();
    await upstream?.close();
    await idp?.close();
    await dropPrefix(prefix);
  });

  /** The session's three IdP tokens, opened from Redis as the service would. */
  async function tokensOf(cookie: string): Promise<{ id: string; access: string; refresh: string }> {
    const sid = decodeURIComponent(cookie.slice(cookie.indexOf('=') + 1))
      .replace(/^s:/, '')
      .replace(/\.[^.]*$/, '');
    const cipher = createCipher(parseEncryptionKeys(KEYS));
    const redis = new Redis('redis://127.0.0.1:6379');
    try {
      const record = JSON.parse((await redis.get(`${prefix}sess:{${sid}}`))!) as {
        tg: { secret: string; oidc: { idToken: string } };
      };
      const state = await redis.hgetall(`${prefix}tok:{${sid}}`);
      return {
        id: cipher.decrypt(record.tg.oidc.idToken, sealedAs.idToken(sid)),
        refresh: cipher.decrypt(record.tg.secret, sealedAs.sessionSecret(sid)),
        access: cipher.decrypt(state.t!, sealedAs.token(sid)),
      };
    } finally {
      redis.disconnect();
    }
  }

  test('when a user logs in, uses the relay and logs out, then no answer a page script can read holds any IdP token (nor the signature of one)', async () => {
    const start = await supertest(service.url).get('/auth/oidc/login');
    const pre = setCookies(start)
      .map(cookiePair)
      .find((c) => c.startsWith('tgbff-sso='))!;
    const callback = await idpLogin(start.headers.location as string, 'alice');
    const landed = await supertest(service.url).get(`/auth/oidc/callback${callback.search}`).set('Cookie', pre);
    expect(landed.status).toBe(303);
    const cookie = sessionCookieOf(landed)!;
    const tokens = await tokensOf(cookie);
    for (const t of Object.values(tokens)) expect(t.length).toBeGreaterThan(20);

    const page = (method: 'get' | 'post', path: string, headers: Record<string, string> = {}) => {
      const agent = supertest(service.url);
      return (method === 'get' ? agent.get(path) : agent.post(path))
        .set(CSRF)
        .set('Cookie', cookie)
        .set({ 'Sec-Fetch-Site': 'same-origin', 'Sec-Fetch-Mode': 'cors', 'Sec-Fetch-Dest': 'empty', ...headers });
    };
    const seen: Seen[] = [seenOf('login redirect', start), seenOf('callback', landed)];
    seen.push(seenOf('GET /auth/session', await page('get', '/auth/session')));
    seen.push(seenOf('GET /auth/methods', await page('get', '/auth/methods')));
    const relayed = await page('get', '/api/echo');
    expect(relayed.status).toBe(200);
    seen.push(seenOf('GET /api/echo', relayed));
    expect(upstream.seen).toContain(`Bearer ${tokens.access}`); // the token searched for is the one in use
    // A script trying the navigation URL with fetch (redirect: 'follow' could read the IdP's URL) is refused.
    const scripted = await page('get', '/auth/oidc/logout');
    seen.push(seenOf('fetch GET /auth/oidc/logout', scripted));
    const logout = await page('post', '/auth/logout');
    seen.push(seenOf('POST /auth/logout', logout));

    const needles = {
      'ID token': tokens.id,
      'ID token signature': tokens.id.split('.')[2]!,
      'access token': tokens.access,
      'access token signature': tokens.access.split('.')[2]!,
      'refresh token': tokens.refresh,
    };
    const leaks = seen.flatMap((s) =>
      Object.entries(needles)
        .filter(([, v]) => s.text.includes(v))
        .map(([name]) => `${name} in ${s.what}`),
    );
    expect(leaks).toEqual([]);
    expect(scripted.status).toBe(403);
    expect(logout.status).toBe(204);
  });

  test('when SSO is configured without OIDC_AUDIENCE, then the start is refused naming it and the TigerGraph setting to match', async () => {
    const run = await startOutcome(baseEnv(idp, upstream.url));
    expect(run.listened).toBe(false);
    expect(run.code).toBe(1);
    expect(run.output).toContain(
      "OIDC_AUDIENCE: is required when OIDC_ISSUER is set without OIDC_CREDENTIAL_MAP: the resource TigerGraph's Security.JWT.Audience names (set both, the same)",
    );
  });
});
