import { randomBytes } from 'node:crypto';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle } from '../../../src/simulator/types.js';
import { loadContract, loadDocument, type Answer } from '../../helpers/openapi-contract.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { uniquePrefix } from '../../helpers/redis-prefix.js';

const contract = loadContract();

async function get(service: ServiceProcess, path: string): Promise<Answer> {
  const res = await fetch(`${service.url}${path}`);
  return { status: res.status, headers: Object.fromEntries(res.headers), text: await res.text() };
}

/** The compiled service (dist/main.js) finds docs/openapi.yaml from dist/ and serves it only where it should. */
describe('GET /openapi.json from the built service', () => {
  let sim: SimulatorHandle;
  const running: ServiceProcess[] = [];
  const production = () => ({
    NODE_ENV: 'production',
    TG_RESTPP_URL: sim.restppUrl,
    TG_VERSION: sim.version,
    REDIS_URL: 'redis://127.0.0.1:6379',
    REDIS_PREFIX: uniquePrefix('openapi'),
    SESSION_SECRET: randomBytes(32).toString('hex'),
    SESSION_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  });
  const start = async (env: Record<string, string>) => {
    const service = await startServiceProcess(env);
    running.push(service);
    return service;
  };
  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(async () => {
    for (const service of running) await service.kill();
    await sim.close();
  });

  test('when it runs in development, then /openapi.json is the document as JSON', async () => {
    const service = await start({ TG_RESTPP_URL: sim.restppUrl, TG_VERSION: sim.version });
    const res = await get(service, '/openapi.json');
    expect(res.status).toBe(200);
    contract.check('GET', '/openapi.json', res);
    expect(JSON.parse(res.text!)).toEqual(loadDocument());
  });

  test('when it runs in production without OPENAPI_ROUTE, then /openapi.json is 404 not_found', async () => {
    const res = await get(await start(production()), '/openapi.json');
    expect([res.status, JSON.parse(res.text!).error.code]).toEqual([404, 'not_found']);
    contract.check('GET', '/openapi.json', res);
  });

  test('when it runs in production with OPENAPI_ROUTE=true, then /openapi.json is served', async () => {
    const res = await get(await start({ ...production(), OPENAPI_ROUTE: 'true' }), '/openapi.json');
    expect(res.status).toBe(200);
    contract.check('GET', '/openapi.json', res);
  });
});
