import { CSRF } from '../../helpers/app-rig.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { freePort } from '../../helpers/ports.js';
import { START_MS, startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { makeLoopbackCert, type TlsCert } from '../../helpers/tls-cert.js';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle } from '../../../src/simulator/types.js';
import { poll, WAIT_MS } from '../../helpers/wait.js';
import { uniquePrefix } from '../../helpers/redis-prefix.js';

// A test starts a service process, which may take up to START_MS on a loaded machine: room for that and more.
const TEST_MS = START_MS + 30_000;

// Child processes: a private CA is trusted either through REDIS_CA_FILE or through NODE_EXTRA_CA_CERTS,
// which Node reads once at start-up.
describe('Redis over TLS', () => {
  let cert: TlsCert;
  let redis: RedisServer;
  let tlsPort: number;
  let sim: SimulatorHandle;
  const services: ServiceProcess[] = [];

  beforeAll(async () => {
    cert = await makeLoopbackCert();
    tlsPort = await freePort();
    // The plain port stays open only so the helper can see the server is up; the service uses the TLS one.
    redis = await startRedisServer({
      args: [
        '--tls-port',
        String(tlsPort),
        '--tls-cert-file',
        cert.certFile,
        '--tls-key-file',
        cert.keyFile,
        '--tls-ca-cert-file',
        cert.certFile,
        '--tls-auth-clients',
        'no',
      ],
    });
    sim = await startSimulator({});
  });
  afterAll(async () => {
    for (const service of services) await service.kill();
    await sim?.close();
    await redis?.stop();
    cert?.remove();
  });

  const start = async (env: Record<string, string>): Promise<ServiceProcess> => {
    const service = await startServiceProcess({
      NODE_ENV: 'test',
      TG_RESTPP_URL: sim.restppUrl,
      TG_VERSION: sim.version,
      COOKIE_SECURE: 'false',
      REDIS_PREFIX: uniquePrefix('redis-tls'),
      ...env,
    });
    services.push(service);
    return service;
  };
  const login = (url: string) =>
    fetch(`${url}/auth/login`, {
      method: 'POST',
      headers: { ...CSRF, 'content-type': 'application/json' },
      body: JSON.stringify({ secret: sim.createSecret({ alias: `tls_${services.length}` }).value, graph: 'social' }),
    });

  test(
    'when REDIS_TLS is on and the CA is trusted, then login and relay work over the TLS port',
    async () => {
      const service = await start({
        REDIS_URL: `redis://127.0.0.1:${tlsPort}`,
        REDIS_TLS: 'true',
        NODE_EXTRA_CA_CERTS: cert.certFile,
      });
      const res = await login(service.url);
      expect(res.status).toBe(200);
      const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
      const echo = await fetch(`${service.url}/api/echo`, { headers: { ...CSRF, cookie } });
      expect(echo.status).toBe(200);
      await echo.arrayBuffer();
      expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    },
    TEST_MS,
  );

  test(
    'when REDIS_CA_FILE names the CA, then the TLS port works without NODE_EXTRA_CA_CERTS',
    async () => {
      const service = await start({ REDIS_URL: `rediss://127.0.0.1:${tlsPort}`, REDIS_CA_FILE: cert.certFile });
      const res = await login(service.url);
      expect(res.status).toBe(200);
      const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
      expect((await fetch(`${service.url}/api/echo`, { headers: { ...CSRF, cookie } })).status).toBe(200);
      expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    },
    TEST_MS,
  );

  test(
    'when the server certificate is not trusted, then the store is unavailable (503), not silently unverified',
    async () => {
      const service = await start({ REDIS_URL: `rediss://127.0.0.1:${tlsPort}` });
      const res = await login(service.url);
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('store_unavailable');
      // Log lines are written in batches (LOG_FLUSH_MS): wait for the line.
      await poll(
        async () => /self[- ]signed certificate/i.test(service.output()),
        WAIT_MS,
        'the certificate problem in the log',
      );
    },
    TEST_MS,
  );
});
