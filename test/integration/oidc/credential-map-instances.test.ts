import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import supertest from 'supertest';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/observability/logger.js';
import { createAudit } from '../../../src/observability/audit.js';
import { createService, type Service } from '../../../src/service.js';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle } from '../../../src/simulator/types.js';
import { startTestIdp, type TestIdp } from '../../helpers/oidc-provider.js';
import { startRedisCluster, type RedisClusterRig } from '../../helpers/redis-cluster.js';
import { dropPrefix, newPrefix } from './sso-rig.js';
import { CSRF, REDIRECT_URI, ssoLogin } from './sso-rig.js';

/**
 * The credential map across three service instances (in process) on one Redis, standalone and Cluster:
 * 50 people on one rule are 50 principals (quota, session cap) served by one TigerGraph token, and a token
 * the data server refuses is replaced once for all of them, whichever instance their requests reach.
 */
const PEOPLE = 50;
const STORES = ['standalone', 'cluster'] as const;

describe.each(STORES)('credential map on three instances, %s Redis', (store) => {
  let idp: TestIdp;
  let sim: SimulatorHandle;
  let cluster: RedisClusterRig | undefined;
  let dir: string;
  const prefix = newPrefix();
  const services: Service[] = [];
  let auditText = '';

  beforeAll(async () => {
    idp = await startTestIdp({ redirectUris: [REDIRECT_URI], accessClaimsOf: () => ({ groups: ['graph-analysts'] }) });
    sim = await startSimulator({ version: '3.9.3' });
    if (store === 'cluster') cluster = await startRedisCluster();
    dir = mkdtempSync(path.join(tmpdir(), 'tgbff-map-multi-'));
    const secretFile = path.join(dir, 'tg-analysts');
    writeFileSync(secretFile, sim.createSecret({ alias: 'analysts_map', graph: 'social' }).value);
    const mapFile = path.join(dir, 'map.yaml');
    writeFileSync(
      mapFile,
      `rules:\n  - name: analysts\n    match: [graph-analysts]\n    graphs: [social]\n    credential: { secretFile: ${secretFile} }\n`,
    );
    const config = loadConfig({
      NODE_ENV: 'test',
      TG_RESTPP_URL: sim.restppUrl,
      TG_GSQL_URL: sim.gsqlUrl,
      TG_VERSION: sim.version,
      ...(cluster ? { REDIS_CLUSTER_NODES: cluster.nodeList } : { REDIS_URL: 'redis://127.0.0.1:6379' }),
      REDIS_PREFIX: prefix,
      // Not a timeout test: 50 sign-ins on a busy machine with six Cluster nodes must not meet the 800 ms default.
      REDIS_COMMAND_TIMEOUT_MS: '4000',
      SESSION_SECRET: 'a-session-secret-shared-by-the-instances-0123456789',
      SESSION_ENCRYPTION_KEYS: 'k1:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
      COOKIE_SECURE: 'false',
      OPENAPI_ROUTE: 'false',
      LOG_LEVEL: 'warn',
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: idp.clientId,
      OIDC_CLIENT_SECRET: idp.clientSecret,
      OIDC_REDIRECT_URI: REDIRECT_URI,
      OIDC_AUDIENCE: idp.audience,
      OIDC_CREDENTIAL_MAP: mapFile,
      // Per person: 3 relayed requests a minute, 2 sessions. A shared credential would be spent at once.
      QUOTA_RATE: '3',
      QUOTA_WINDOW: '60',
      SESSIONS_PER_CREDENTIAL: '2',
      LOGIN_ADDRESS_BUDGET: '1000',
      LOGIN_RATE_LIMIT: '1000',
    });
    for (let i = 0; i < 3; i++) {
      services.push(
        await createService({
          config,
          upstream: { restppUrl: sim.restppUrl, gsqlUrl: sim.gsqlUrl, version: sim.version },
          logger: createLogger({ level: 'warn', destination: new PassThrough().resume() }),
          audit: createAudit({ destination: { write: (line: string) => void (auditText += line) } }),
          instanceId: randomUUID(),
        }),
      );
    }
  });

  afterAll(async () => {
    for (const s of services) await s.close();
    if (!cluster) await dropPrefix(prefix);
    await cluster?.stop();
    await sim?.close();
    await idp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const app = (i: number) => services[i % 3]!.app;
  const relay = (i: number, cookie: string) => supertest(app(i)).get('/api/echo').set(CSRF).set('Cookie', cookie);
  const ruleTokens = () => sim.tokens().filter((t) => t.secretAlias === 'analysts_map');
  const cookies: string[] = [];

  test('when 50 people sign in on one rule across three instances, then one TigerGraph token serves them all', async () => {
    for (let i = 0; i < PEOPLE; i++) cookies.push((await ssoLogin(app(i), `person${i}`)).cookie);
    const answers = await Promise.all(cookies.map((c, i) => relay(i + 1, c)));
    expect(answers.map((r) => r.status)).toEqual(cookies.map(() => 200));
    expect(ruleTokens()).toHaveLength(1);
    expect(auditText).toMatch(/"event":"login.succeeded"[^\n]*"user":"person7"[^\n]*"rule":"analysts"/);
  }, 120_000);

  test('when the data server refuses the shared token, then 50 people on three instances get one new token between them', async () => {
    const mintsBefore = sim.counts()['POST /requesttoken'] ?? 0;
    for (const t of ruleTokens()) sim.revokeToken(t.token);
    const answers = await Promise.all(cookies.map((c, i) => relay(i + 2, c)));
    expect(answers.map((r) => r.status)).toEqual(cookies.map(() => 200));
    expect((sim.counts()['POST /requesttoken'] ?? 0) - mintsBefore).toBe(1);
    expect(ruleTokens()).toHaveLength(1);
  });

  test('when one person spends their quota, then it is theirs alone: the 49 others on the same credential are served', async () => {
    // Each person has made 2 requests; a third is within the quota of 3, a fourth is not.
    expect((await relay(0, cookies[0]!)).status).toBe(200);
    const over = await relay(1, cookies[0]!);
    expect([over.status, over.body.error?.code]).toEqual([429, 'quota_exceeded']);
    const others = await Promise.all(cookies.slice(1).map((c, i) => relay(i, c)));
    expect(others.map((r) => r.status)).toEqual(cookies.slice(1).map(() => 200));
  });

  test("when one person logs in beyond SESSIONS_PER_CREDENTIAL, then only that person's oldest session ends", async () => {
    const again = [(await ssoLogin(app(0), 'person1')).cookie, (await ssoLogin(app(1), 'person1')).cookie];
    const session = (i: number, c: string) => supertest(app(i)).get('/auth/session').set(CSRF).set('Cookie', c);
    expect((await session(2, cookies[1]!)).status).toBe(401);
    expect((await session(0, again[0]!)).status).toBe(200);
    expect((await session(1, again[1]!)).status).toBe(200);
    const others = await Promise.all(cookies.slice(2).map((c, i) => session(i, c)));
    expect(others.map((r) => r.status)).toEqual(cookies.slice(2).map(() => 200));
    expect(ruleTokens()).toHaveLength(1);
  });
});
