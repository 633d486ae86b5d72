import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Redis } from 'ioredis';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { poll, WAIT_MS } from '../../helpers/wait.js';
import { ALICE, SIM_USERS, secretsOf } from '../admin/admin-harness.js';
import supertest from 'supertest';
import { startTestIdp, type TestIdp } from '../../helpers/oidc-provider.js';
import { uniquePrefix } from '../../helpers/redis-prefix.js';
import {
  REDIRECT_URI,
  idpLogin,
  sessionCookieOf as sessionCookieOfSso,
  startCountingUpstream,
  startLogin,
  startSsoService,
  type CountingUpstream,
  type SsoService,
} from '../oidc/sso-rig.js';

/**
 * A login is several writes (token state, the session-end entry, the credential's session list, the secret
 * drop, the session record). Each one is made to fail in turn by a real Redis: the service's Redis user
 * loses write access to that key family (ACL), everything else keeps working. Whatever step fails, the
 * browser gets no session cookie, no session record is readable, and what was made upstream (the token,
 * a password login's secret) is gone at once or left to a sweeper that finds it.
 */

const USER = 'bff';
const PASSWORD = 'login-step-failure-pw';
const SWEEP_MS = 200;

/** Every key family the service writes, as ACL patterns under the rig's prefix. */
const FAMILIES = [
  'sess:*',
  'tok:*',
  'lease:*',
  'dead:*',
  'rl:*',
  'creds:*',
  'creds-info:*',
  'session-ends',
  'secret-drops',
  'oidc-idx:*',
  'oidc-jti:*',
];

let server: RedisServer;
let admin: Redis;

beforeAll(async () => {
  server = await startRedisServer();
  admin = new Redis(server.url);
  // The service connects as this user from the start; each rig then narrows it to its own prefix.
  await admin.call('ACL', 'SETUSER', USER, 'on', `>${PASSWORD}`, '~*', '+@all');
});
afterAll(async () => {
  admin.disconnect();
  await server.stop();
});

/** The service's Redis user may read everything of `prefix`, and write all of it but `readOnly`. */
async function allowWrites(prefix: string, readOnly?: string): Promise<void> {
  const patterns = FAMILIES.map((f) => (f === readOnly ? `%R~${prefix}${f}` : `~${prefix}${f}`));
  await admin.call('ACL', 'SETUSER', USER, 'on', `>${PASSWORD}`, 'resetkeys', ...patterns, '+@all');
}

const storeUrl = () => `redis://${USER}:${PASSWORD}@127.0.0.1:${server.port}`;

async function keysOf(prefix: string, family: string): Promise<string[]> {
  return admin.keys(`${prefix}${family}`);
}

/** Session ids of the session-end entries (the sweeper's to-do list). */
async function sessionEndSids(prefix: string): Promise<string[]> {
  const members = await admin.zrange(`${prefix}session-ends`, 0, -1);
  return members.map((m) => (JSON.parse(m) as [string])[0]);
}

function sessionCookieOf(rig: Rig, setCookie: string[] | string | undefined): string[] {
  const all = setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie];
  return all.filter((c) => c.startsWith(`${rig.config.session.cookieName}=`));
}

/** What the login left: for each token state, whether the sweeper has an entry for its session. */
async function leftovers(rig: Pick<Rig, 'prefix'>, before: { sessions: string[]; tokens: string[] }) {
  const sessions = (await keysOf(rig.prefix, 'sess:*')).filter((k) => !before.sessions.includes(k));
  const tokens = (await keysOf(rig.prefix, 'tok:*'))
    .filter((k) => !before.tokens.includes(k))
    .map((k) => k.slice(k.indexOf('{') + 1, -1));
  const ends = await sessionEndSids(rig.prefix);
  return { sessions, unswept: tokens.filter((sid) => !ends.includes(sid)) };
}

describe.each([
  { kind: 'secret', steps: ['tok:*', 'session-ends', 'creds:*', 'sess:*'] },
  { kind: 'password', steps: ['secret-drops', 'tok:*', 'session-ends', 'creds:*', 'sess:*'] },
] as const)('a $kind login whose store write fails part way', ({ kind, steps }) => {
  let rig: Rig;
  const liveTokens = () => rig.sim.tokens().filter((t) => t.expiresAt * 1000 > Date.now()).length;
  const body = () =>
    kind === 'secret'
      ? { secret: rig.secret, graph: 'social' }
      : { username: ALICE.name, password: ALICE.password, graph: 'social' };
  const serviceSecrets = async () =>
    kind === 'password' ? (await secretsOf(rig.sim, ALICE)).filter((s) => s.alias.startsWith('tgbff_')).length : 0;

  beforeAll(async () => {
    rig = await startRig({
      store: storeUrl(),
      sim: SIM_USERS,
      label: `step-${kind}`,
      env: {
        LOGIN_RATE_LIMIT: '1000',
        LOGIN_ADDRESS_BUDGET: '1000',
        LOGIN_CREDENTIAL_BUDGET: '1000',
        TOKEN_SWEEP_INTERVAL_MS: String(SWEEP_MS),
        ...(kind === 'password' && { PASSWORD_LOGIN: 'true' }),
      },
      secretSweep: { intervalMs: SWEEP_MS, claimMs: 1000 },
    });
  });
  afterAll(async () => {
    await allowWrites(rig.prefix);
    await rig.close();
  });

  test('when every write is allowed, then the login succeeds (the ACL set-up lets a whole login through)', async () => {
    await allowWrites(rig.prefix);
    const agent = rig.agent();
    const res = await agent.post('/auth/login').send(body());
    expect(res.status).toBe(200);
    expect(sessionCookieOf(rig, res.headers['set-cookie'])).toHaveLength(1);
    expect((await agent.get('/auth/session')).status).toBe(200);
    expect((await agent.post('/auth/logout')).status).toBe(204);
    await poll(async () => liveTokens() === 0 && (await serviceSecrets()) === 0, WAIT_MS, 'the logout to clean up');
  });

  test.each(steps)(
    'when writing %s fails, then 503 without a session cookie, no readable session, and nothing upstream outlives it',
    async (family) => {
      await allowWrites(rig.prefix);
      const before = {
        tokens: liveTokens(),
        secrets: await serviceSecrets(),
        sessions: await keysOf(rig.prefix, 'sess:*'),
        tokenStates: await keysOf(rig.prefix, 'tok:*'),
      };
      await allowWrites(rig.prefix, family);
      const agent = rig.agent();
      const res = await agent.post('/auth/login').send(body());

      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ error: { code: 'store_unavailable' } });
      expect(sessionCookieOf(rig, res.headers['set-cookie'])).toEqual([]);
      expect((await agent.get('/auth/session')).status).toBe(401);
      const left = await leftovers(rig, { sessions: before.sessions, tokens: before.tokenStates });
      expect(left.sessions).toEqual([]);
      // A token state without a session-end entry would never be swept.
      expect(left.unswept).toEqual([]);

      // Writes allowed again: what the failed login made upstream is gone, at once or by a sweeper's pass.
      await allowWrites(rig.prefix);
      await poll(
        async () => liveTokens() <= before.tokens && (await serviceSecrets()) <= before.secrets,
        WAIT_MS,
        `the failed login's token and secret to be gone (tokens ${liveTokens()} of ${before.tokens})`,
      );
    },
  );
});

describe('a single sign-on login whose store write fails part way', () => {
  let idp: TestIdp;
  let upstream: CountingUpstream;
  let svc: SsoService;
  const prefix = uniquePrefix('step-oidc');

  beforeAll(async () => {
    idp = await startTestIdp({ redirectUris: [REDIRECT_URI], accessClaims: { graph: 'social' } });
    upstream = await startCountingUpstream();
    svc = await startSsoService({
      idp,
      upstream: upstream.url,
      prefix,
      env: {
        REDIS_URL: storeUrl(),
        LOGIN_ADDRESS_BUDGET: '1000',
        LOGIN_CREDENTIAL_BUDGET: '1000',
        TOKEN_SWEEP_INTERVAL_MS: String(SWEEP_MS),
      },
    });
  });
  afterAll(async () => {
    await allowWrites(prefix);
    await svc.close();
    await upstream.close();
    await idp.close();
  });

  /** Walks a login through the IdP and answers the callback as a browser would. */
  async function callback() {
    const { preCookie, authorizeUrl } = await startLogin(svc.service.app);
    const back = await idpLogin(authorizeUrl, 'carol');
    return supertest(svc.service.app).get(`/auth/oidc/callback${back.search}`).set('Cookie', preCookie);
  }

  test('when every write is allowed, then the callback logs in (the ACL set-up lets a whole login through)', async () => {
    await allowWrites(prefix);
    const res = await callback();
    // On failure this names the answer and what the service warned of, not only the status.
    const warned = () =>
      svc
        .logs()
        .split('\n')
        .filter((l) => /"level":(4|5)0/.test(l));
    expect({ status: res.status, body: res.body as unknown, warned: res.status === 303 ? [] : warned() }).toMatchObject(
      {
        status: 303,
      },
    );
    expect(sessionCookieOfSso(res)).toBeDefined();
  });

  test.each(['session-ends', 'tok:*', 'oidc-idx:*', 'creds:*', 'sess:*'])(
    'when writing %s fails, then 503 without a session cookie, no readable session, and the IdP refresh token revoked',
    async (family) => {
      await allowWrites(prefix);
      const before = {
        sessions: await keysOf(prefix, 'sess:*'),
        tokens: await keysOf(prefix, 'tok:*'),
        destroyed: idp.destroyedRefreshTokens(),
      };
      await allowWrites(prefix, family);
      const res = await callback();

      expect(res.status).toBe(503);
      expect(sessionCookieOfSso(res)).toBeUndefined();
      const left = await leftovers({ prefix }, before);
      expect(left.sessions).toEqual([]);
      expect(left.unswept).toEqual([]);
      // What the login got from the IdP is given back: its refresh token no longer works.
      expect(idp.destroyedRefreshTokens()).toBeGreaterThan(before.destroyed);
    },
  );
});
