import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import supertest from 'supertest';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle } from '../../../src/simulator/types.js';
import { CSRF } from '../../helpers/app-rig.js';
import { startHttpsForwarder, type HttpsForwarder } from '../../helpers/https-forwarder.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { makeTestCerts, type TestCerts } from '../../helpers/test-certs.js';
import { until } from '../../helpers/wait.js';

/** The services' upstream deadline: a failed handshake must be answered without running it out. */
const UPSTREAM_TIMEOUT_MS = 5000;

/**
 * TigerGraph Cloud's shape over TLS: one https origin, RESTPP under /restpp, the admin server at the
 * root, a certificate from a CA only TG_CA_FILE knows. The service runs as dist/main.js, so the whole
 * path from env to every undici dispatcher is under test.
 */
describe('when TigerGraph is reached over https with a private CA', () => {
  let dir: string;
  let certs: TestCerts;
  let sim: SimulatorHandle;
  let fwd: HttpsForwarder;
  let secret: string;
  const services: ServiceProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tgbff-tls-'));
    certs = makeTestCerts(dir);
    sim = await startSimulator({ version: '4.1.0' });
    secret = sim.createSecret({ alias: 'tls_test' }).value;
    fwd = await startHttpsForwarder({ target: sim.gsqlUrl, key: certs.key, cert: certs.cert });
  });
  afterAll(async () => {
    for (const svc of services) await svc.kill();
    await fwd.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(extra: Record<string, string>): Promise<ServiceProcess> {
    const svc = await startServiceProcess({
      NODE_ENV: 'test',
      TG_RESTPP_URL: `${fwd.url}/restpp`,
      TG_GSQL_URL: fwd.url,
      TG_VERSION: '4.1.0',
      COOKIE_SECURE: 'false',
      UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
      ...extra,
    });
    services.push(svc);
    return svc;
  }

  test('when TG_CA_FILE names the CA, then login, relay, readiness and logout all go through the https front', async () => {
    const svc = await start({ TG_CA_FILE: certs.caFile });
    const agent = supertest.agent(svc.url).set(CSRF);

    const login = await agent.post('/auth/login').send({ secret, graph: 'social' });
    expect(login.status).toBe(200);
    expect(login.body.authenticated).toBe(true);
    const echo = await agent.get('/api/echo');
    expect(echo.status).toBe(200);
    expect(echo.body.message).toBe('Hello GSQL');
    const ready = await agent.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ store: 'ok', upstream: 'ok', admin: 'ok' });
    expect((await agent.post('/auth/logout')).status).toBe(204);
    expect((await agent.get('/api/echo')).status).toBe(401);

    // Every call crossed the TLS front: token mint and delete at the root, data calls under /restpp.
    expect(fwd.forwarded()).toEqual(
      expect.arrayContaining(['POST /gsql/v1/tokens', 'GET /restpp/echo', 'DELETE /gsql/v1/tokens']),
    );
    const relayed = sim.seen().filter((r) => r.path === '/echo' && r.auth === 'ok');
    expect(relayed.length).toBeGreaterThanOrEqual(1);
    expect(sim.tokens()).toHaveLength(0);
  });

  test('when no TG_CA_FILE is set, then login fails fast with 502 upstream_unavailable naming the certificate problem in the log', async () => {
    const svc = await start({});
    const before = fwd.forwarded().length;
    const started = performance.now();
    const login = await supertest(svc.url).post('/auth/login').set(CSRF).send({ secret, graph: 'social' });
    expect(login.status).toBe(502);
    expect(login.body.error.code).toBe('upstream_unavailable');
    expect(performance.now() - started).toBeLessThan(UPSTREAM_TIMEOUT_MS);
    expect(login.headers['set-cookie']).toBeUndefined();

    const ready = await supertest(svc.url).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'not_ready', checks: { upstream: 'unavailable' } });
    // The handshake failed, so no HTTP request reached the front.
    expect(fwd.forwarded()).toHaveLength(before);
    // Log lines are written in batches (LOG_FLUSH_MS, 250 ms by default): wait for the line, not for luck.
    const certProblem = /SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT/;
    await until('the certificate problem in the log', () => certProblem.test(svc.output()));
    expect(svc.output()).not.toContain(secret);
    const metrics = await supertest(svc.metricsUrl ?? svc.url).get('/metrics');
    expect(metrics.text).toMatch(/^tgbff_upstream_errors_total\{kind="unavailable"\} 1$/m);
    expect(metrics.text).toMatch(/^tgbff_logins_total\{result="error"\} 1$/m);
  });
});
