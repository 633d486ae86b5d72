import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { startTestIdp, type TestIdp } from '../../helpers/oidc-provider.js';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { startRedisCluster, type RedisClusterRig } from '../../helpers/redis-cluster.js';
import { untilMatch } from '../../helpers/wait.js';
import { CSRF, REDIRECT_URI, idpLogin, ssoLogin, startLogin } from './sso-rig.js';

/**
 * OIDC_CREDENTIAL_MAP against the real pieces: panva's oidc-provider issuing group claims (per person, asked
 * again at every refresh), the simulator as TigerGraph 3.4, 3.9 and 4.1, the service in process on the
 * machine's Redis, and once more (as 4.1) on a Redis Cluster of its own: the version decides the credential's
 * wire, the store where a person's keys live (slots). The service's clock is moved by hand to reach an IdP
 * refresh; the IdP keeps real time.
 */
const CASES = [
  ['3.4.0', 'standalone'],
  ['3.9.3', 'standalone'],
  ['4.1.0', 'standalone'],
  ['4.1.0', 'cluster'],
] as const;
const ADMIN_ENV = 'TGBFF_TEST_MAP_ADMIN_PASSWORD';

/** LOGIN_CREDENTIAL_BUDGET here: successful logins of one person per window. */
const PERSONAL_BUDGET = 3;

describe.each(CASES)('credential map on TigerGraph %s, %s Redis', (version, store) => {
  let idp: TestIdp;
  let rig: Rig;
  let cluster: RedisClusterRig | undefined;
  let dir: string;
  let analystsFile: string;
  let financeFile: string;
  let offset = 0;
  const now = () => Date.now() + offset;
  const groups = new Map<string, unknown>();
  const TTL = 120;
  const passwords = version !== '3.4.0';

  beforeAll(async () => {
    process.env[ADMIN_ENV] = 'tigergraph';
    idp = await startTestIdp({
      redirectUris: [REDIRECT_URI],
      accessTokenTtl: TTL,
      accessClaimsOf: (id) => (groups.has(id) ? { groups: groups.get(id) } : undefined),
    });
    dir = mkdtempSync(path.join(tmpdir(), 'tgbff-map-'));
    analystsFile = path.join(dir, 'tg-analysts');
    financeFile = path.join(dir, 'tg-finance');
    // Present at start-up (checked then); their secrets are written once the simulator made them.
    writeFileSync(analystsFile, 'not-yet\n');
    writeFileSync(financeFile, 'not-yet\n');
    const mapFile = path.join(dir, 'map.yaml');
    writeFileSync(
      mapFile,
      [
        'claim: groups',
        'rules:',
        '  - name: analysts',
        '    match: [graph-analysts]',
        '    graphs: [social]',
        `    credential: { secretFile: ${analystsFile} }`,
        '  - name: finance',
        '    match: [graph-finance]',
        '    graphs: [finance]',
        `    credential: { secretFile: ${financeFile} }`,
        '  - name: anything',
        '    match: [graph-any]',
        "    graphs: ['*']",
        `    credential: { secretFile: ${analystsFile} }`,
        ...(passwords
          ? [
              '  - name: admins',
              '    match: [graph-admins]',
              "    graphs: ['*']",
              `    credential: { username: tigergraph, passwordEnv: ${ADMIN_ENV} }`,
            ]
          : []),
      ].join('\n'),
    );
    if (store === 'cluster') cluster = await startRedisCluster();
    rig = await startRig({
      now,
      label: 'map',
      ...(cluster && { store: { env: { REDIS_CLUSTER_NODES: cluster.nodeList } } }),
      sim: { version, graphs: ['finance'] },
      env: {
        OIDC_ISSUER: idp.issuer,
        OIDC_CLIENT_ID: idp.clientId,
        OIDC_CLIENT_SECRET: idp.clientSecret,
        OIDC_REDIRECT_URI: REDIRECT_URI,
        OIDC_AUDIENCE: idp.audience,
        OIDC_REFRESH_BEFORE: '30',
        OIDC_CREDENTIAL_MAP: mapFile,
        [ADMIN_ENV]: 'tigergraph',
        // Short enough that moving the clock reaches a shared token's refresh within the session's life.
        TG_TOKEN_LIFETIME: '900',
        TOKEN_REFRESH_BEFORE: '120',
        // Each person's own login budget, small enough to spend in a test; no other test signs one person in
        // more than twice.
        LOGIN_CREDENTIAL_BUDGET: String(PERSONAL_BUDGET),
        // Not a timeout test: six processes' worth of Cluster on a busy machine must not meet the 800 ms default.
        ...(cluster && { REDIS_COMMAND_TIMEOUT_MS: '4000' }),
      },
    });
    writeFileSync(analystsFile, `${rig.secret}\n`);
    writeFileSync(financeFile, rig.sim.createSecret({ alias: 'finance_map', graph: 'finance' }).value);
  });

  afterAll(async () => {
    await rig?.close();
    await cluster?.stop();
    await idp?.close();
    rmSync(dir, { recursive: true, force: true });
    delete process.env[ADMIN_ENV];
  });

  const app = () => rig.service.app;
  const relay = (cookie: string, url = '/api/echo') => supertest(app()).get(url).set(CSRF).set('Cookie', cookie);
  /** The callback's answer, as JSON (a page would get the same status as HTML). */
  async function callback(user: string, query = '') {
    const { preCookie, authorizeUrl } = await startLogin(app(), query);
    const back = await idpLogin(authorizeUrl, user);
    return supertest(app())
      .get(`/auth/oidc/callback${back.search}`)
      .set('Cookie', preCookie)
      .set('Accept', 'application/json');
  }
  /** The keys under the rig's prefix starting with `kind`: from the one Redis, or from every Cluster master. */
  const redisKeys = async (kind: string): Promise<string[]> => {
    const pattern = `${rig.prefix}${kind}*`;
    if (!cluster) return rig.redis().keys(pattern);
    const each = await Promise.all(cluster.nodes.map((node) => cluster!.client(node.port).keys(pattern)));
    return each.flat();
  };
  /** What a login may leave: everything but the per-address login budget's counter (the bound on callbacks). */
  const stored = async () => (await redisKeys('')).filter((k) => !k.startsWith(`${rig.prefix}rl:`)).sort();
  const tokensOf = (alias: string) => rig.sim.tokens().filter((t) => t.secretAlias === alias);

  test('when an analyst signs in, then the session relays a token of the rule, and GET /auth/session names person, rule and graphs, never the credential', async () => {
    groups.set('ana', ['graph-analysts']);
    const { cookie } = await ssoLogin(app(), 'ana');
    expect((await relay(cookie)).status).toBe(200);
    const seen = rig.sim.seen().filter((r) => r.path.endsWith('/echo'));
    const bearer = seen.at(-1)!.headers.authorization;
    expect(rig.sim.tokens().map((t) => `Bearer ${t.token}`)).toContain(bearer);
    expect(tokensOf(rig.alias)).toHaveLength(1);
    const session = await supertest(app()).get('/auth/session').set(CSRF).set('Cookie', cookie);
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ login: 'oidc', sub: 'ana', name: 'User ana', rule: 'analysts' });
    expect(session.body.graphs).toEqual(['social']);
    expect(session.body.graph).toBe('social');
    // The expiry shown is the rule's shared TigerGraph token's (not the person's IdP token's).
    expect(Date.parse(session.body.tokenExpiresAt) / 1000).toBe(tokensOf(rig.alias)[0]!.expiresAt);
    expect(JSON.stringify(session.body)).not.toContain(rig.secret);
    const methods = await supertest(app()).get('/auth/methods');
    expect(methods.body.oidcCredentialMap).toBe(true);
    expect(methods.body.signedIn).toBeUndefined();
    const mine = await supertest(app()).get('/auth/methods').set('Cookie', cookie);
    expect(mine.body.signedIn).toEqual({ name: 'User ana', rule: 'analysts', graphs: ['social'] });
    expect(rig.audit()).toMatch(/"event":"login.succeeded"[^\n]*"user":"ana"[^\n]*"rule":"analysts"/);
  });

  test("when the IdP's back-channel logout names a person, then their sessions end at once and the rule's token stays for the others", async () => {
    groups.set('bcl', ['graph-analysts']);
    groups.set('stay', ['graph-analysts']);
    const gone = (await ssoLogin(app(), 'bcl')).cookie;
    const kept = (await ssoLogin(app(), 'stay')).cookie;
    expect((await relay(gone)).status).toBe(200);
    const tokens = tokensOf(rig.alias).length;
    const res = await supertest(app())
      .post('/auth/oidc/backchannel-logout')
      .type('form')
      .send({ logout_token: await idp.logoutToken({ sub: 'bcl' }) });
    expect(res.status).toBe(200);
    expect((await relay(gone)).status).toBe(401);
    expect((await relay(kept)).status).toBe(200);
    expect(tokensOf(rig.alias)).toHaveLength(tokens);
    // The access line names the person and the rule beside them.
    await untilMatch('the access line of stay', rig.logs, /"user":"stay"[^\n]*"rule":"analysts"/);
  });

  test('when a person is in two groups, then the first matching rule wins', async () => {
    groups.set('both', ['graph-finance', 'graph-analysts']);
    const { cookie } = await ssoLogin(app(), 'both');
    const session = await supertest(app()).get('/auth/session').set(CSRF).set('Cookie', cookie);
    expect(session.body).toMatchObject({ rule: 'analysts', graph: 'social' });
  });

  test('when a person matches no rule, then the callback answers 403 sso_not_permitted, audits it and stores nothing', async () => {
    groups.set('nobody', ['other-team']);
    const before = await stored();
    const res = await callback('nobody');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('sso_not_permitted');
    expect(sessionCookieOf(res)).toBeUndefined();
    expect(await stored()).toEqual(before);
    expect(rig.audit()).toMatch(/"event":"login.refused"[^\n]*"reason":"not_permitted"/);
  });

  test('when a login asks for a graph its rule does not open, then 403 graph_not_permitted; one it opens is its graph', async () => {
    groups.set('fin', ['graph-finance']);
    const refused = await callback('fin', '?graph=social');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('graph_not_permitted');
    const { cookie } = await ssoLogin(app(), 'fin', '?graph=finance');
    expect((await relay(cookie)).status).toBe(200);
    expect(tokensOf('finance_map')).toHaveLength(1);
  });

  test('when claims are hostile (huge, not strings, path-like), then a clear refusal and nothing stored', async () => {
    groups.set(
      'huge',
      Array.from({ length: 5000 }, (_, i) => `g${i}`),
    );
    groups.set('objects', [{ $ne: 1 }, 7]);
    groups.set('pathlike', ['../graph-analysts', 'graph-analysts/..', '*']);
    const before = await stored();
    const huge = await callback('huge');
    expect([huge.status, huge.body.error.code]).toEqual([403, 'sso_claims_invalid']);
    const objects = await callback('objects');
    expect([objects.status, objects.body.error.code]).toEqual([403, 'sso_claims_invalid']);
    const pathlike = await callback('pathlike');
    expect([pathlike.status, pathlike.body.error.code]).toEqual([403, 'sso_not_permitted']);
    for (const graph of ['../social', 'social/..', 'x'.repeat(300), '']) {
      const start = await supertest(app())
        .get(`/auth/oidc/login?graph=${encodeURIComponent(graph)}`)
        .set('Accept', 'application/json');
      expect([start.status, start.body.error?.code]).toEqual([400, 'invalid_request']);
    }
    expect(await stored()).toEqual(before);
  });

  test('when one person spends their login budget, then their next callback is 429 and nothing is stored, and others on the rule still sign in', async () => {
    for (const p of ['eager', 'patient']) groups.set(p, ['graph-analysts']);
    for (let i = 0; i < PERSONAL_BUDGET; i++) await ssoLogin(app(), 'eager');
    // Besides the budget's counters, a callback the IdP vouched for leaves only its spent pre-login's one-use
    // mark (oidc-jti), whatever follows.
    const kept = async () => (await stored()).filter((k) => !k.includes(':oidc-jti:'));
    const before = await kept();
    const over = await callback('eager');
    expect([over.status, over.body.error?.code]).toEqual([429, 'rate_limited']);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(sessionCookieOf(over)).toBeUndefined();
    expect(await kept()).toEqual(before);
    expect(rig.audit()).toContain('"event":"login.limited"');
    // The budget is the person's, never the rule's shared credential: a colleague is not locked out.
    const colleague = await ssoLogin(app(), 'patient');
    expect((await relay(colleague.cookie)).status).toBe(200);
  });

  test('when 20 people sign in on one rule, then one TigerGraph token serves them all, each is a principal of their own, and one logout leaves the others working', async () => {
    const people = Array.from({ length: 20 }, (_, i) => `crowd${i}`);
    for (const p of people) groups.set(p, ['graph-analysts']);
    const cookies: string[] = [];
    for (const p of people) cookies.push((await ssoLogin(app(), p)).cookie);
    const answers = await Promise.all(cookies.map((c) => relay(c)));
    expect(answers.map((r) => r.status)).toEqual(people.map(() => 200));
    expect(tokensOf(rig.alias)).toHaveLength(1);
    // The per-principal session lists: one per person, none for the shared credential.
    expect((await redisKeys('creds:')).length).toBeGreaterThanOrEqual(people.length);
    const out = await supertest(app()).post('/auth/logout').set(CSRF).set('Cookie', cookies[0]!);
    expect(out.status).toBe(204);
    expect(tokensOf(rig.alias)).toHaveLength(1);
    expect((await relay(cookies[1]!)).status).toBe(200);
    expect((await relay(cookies[0]!)).status).toBe(401);
  });

  test('when the secret file is rotated and the old token revoked, then the next request mints from the new secret without a restart', async () => {
    groups.set('rota', ['graph-analysts']);
    const { cookie } = await ssoLogin(app(), 'rota');
    expect((await relay(cookie)).status).toBe(200);
    const rotated = rig.sim.createSecret({ alias: 'analysts_rotated', graph: 'social' });
    writeFileSync(analystsFile, rotated.value);
    for (const t of tokensOf(rig.alias)) rig.sim.revokeToken(t.token);
    expect((await relay(cookie)).status).toBe(200);
    expect(tokensOf('analysts_rotated')).toHaveLength(1);
  });

  test('when the shared token is due, then requests of 10 people refresh it once, to now + lifetime', async () => {
    const people = Array.from({ length: 10 }, (_, i) => `due${i}`);
    for (const p of people) groups.set(p, ['graph-analysts']);
    const cookies: string[] = [];
    for (const p of people) cookies.push((await ssoLogin(app(), p)).cookie);
    expect((await relay(cookies[0]!)).status).toBe(200);
    const tokenCalls = () =>
      rig.sim.seen().filter((r) => /\/requesttoken$|\/gsql\/v1\/tokens$/.test(r.path) && r.method !== 'DELETE').length;
    const before = tokenCalls();
    const current = rig.sim.tokens().filter((t) => t.expiresAt * 1000 > now());
    const dueIn = Math.min(...current.map((t) => t.expiresAt * 1000)) - now();
    offset += dueIn - 60_000; // 60 s left: inside the 120 s margin, still valid
    const answers = await Promise.all(cookies.map((c) => relay(c)));
    expect(answers.map((r) => r.status)).toEqual(cookies.map(() => 200));
    expect(tokenCalls() - before).toBe(1);
    const newest = Math.max(...rig.sim.tokens().map((t) => t.expiresAt));
    expect(Math.abs(newest - (Math.floor(now() / 1000) + 900))).toBeLessThanOrEqual(5);
  });

  test('when a person is removed from the group between refreshes, then the next refresh ends the session', async () => {
    groups.set('leaver', ['graph-analysts']);
    const { cookie } = await ssoLogin(app(), 'leaver');
    expect((await relay(cookie)).status).toBe(200);
    groups.set('leaver', ['other-team']);
    offset += (TTL - 20) * 1000; // inside the 30 s refresh margin of the IdP access token
    const res = await relay(cookie);
    expect([res.status, res.body.error?.code]).toEqual([401, 'session_expired']);
    expect((await relay(cookie)).status).toBe(401);
    expect(rig.audit()).toMatch(/"event":"session.ended","reason":"idp_refused"[^\n]*"rule":"analysts"/);
  });

  test("when a person of a '*' rule names graphs that do not exist, then no token is minted for each name", async () => {
    groups.set('any', ['graph-any']);
    const before = rig.sim.tokens().length;
    const names = ['made_up_1', 'made_up_2', 'made_up_3'];
    const answers = [];
    for (const graph of names) answers.push(await callback('any', `?graph=${graph}`));
    if (version === '3.4.0') {
      // 3.4 cannot check a graph beside a secret: the token is the secret's own, one for the rule.
      expect(answers.map((r) => r.status)).toEqual([303, 303, 303]);
      expect(rig.sim.tokens().length - before).toBe(1);
    } else {
      expect(answers.map((r) => [r.status, r.body.error?.code])).toEqual(names.map(() => [400, 'graph_not_found']));
      expect(rig.sim.tokens().length - before).toBe(0);
    }
  });

  (passwords ? test : test.skip)(
    'when an admin signs in with a rule of a TigerGraph user and password, then any graph may be named',
    async () => {
      groups.set('root', ['graph-admins']);
      const { cookie } = await ssoLogin(app(), 'root', '?graph=finance');
      expect((await relay(cookie)).status).toBe(200);
      const session = await supertest(app()).get('/auth/session').set(CSRF).set('Cookie', cookie);
      expect(session.body).toMatchObject({ rule: 'admins', graph: 'finance', graphs: ['*'] });
    },
  );
});

function sessionCookieOf(res: { headers: Record<string, unknown> }): string | undefined {
  const raw = res.headers['set-cookie'];
  const list = (Array.isArray(raw) ? raw : raw ? [String(raw)] : []) as string[];
  return list.map((c) => c.split(';')[0]!).find((c) => c.startsWith('tgbff=') && c !== 'tgbff=');
}
