import { parsePromText } from '../observability/prom-text.js';
import { startGuardRig, type GuardRig } from './guard-rig.js';
import { rawRequest } from '../../helpers/raw-request.js';

describe('metrics on their own port (a real service process, METRICS_PORT=0)', () => {
  let rig: GuardRig;
  beforeAll(async () => {
    rig = await startGuardRig('metrics-port');
  });
  afterAll(() => rig?.close());

  test.each([
    ['GET', '/metrics'],
    ['GET', '/METRICS'],
    ['GET', '/Metrics'],
    ['GET', '/metrics/'],
    ['GET', '/metrics?x=1'],
    ['GET', '/metrics/?x=1'],
    ['GET', '/%6Detrics'],
    ['GET', '//metrics'],
    ['HEAD', '/metrics'],
  ])(
    'when %s %s is asked on the public port, then it is 404 not_found with no metric in it',
    async (method, target) => {
      const res = await rawRequest(rig.bff.url, target, { method });
      expect(res.status).toBe(404);
      if (method === 'GET') expect(res.code).toBe('not_found');
      expect(res.body).not.toContain('tgbff_');
    },
  );

  test('when Prometheus scrapes the metrics port, then it gets the text exposition with the service metrics', async () => {
    expect(rig.bff.metricsUrl).toBeDefined();
    await rig.login();
    const res = await rawRequest(rig.bff.metricsUrl!, '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers['cache-control']).toBe('no-store');
    const { samples } = parsePromText(res.body);
    expect(samples.find((s) => s.name === 'tgbff_logins_total' && s.labels['result'] === 'ok')?.value).toBe(1);
  });

  test.each([
    ['GET', '/healthz', 404, 'not_found'],
    ['GET', '/auth/session', 404, 'not_found'],
    ['GET', '/', 404, 'not_found'],
    ['GET', '/METRICS', 404, 'not_found'],
    ['POST', '/metrics', 405, 'method_not_allowed'],
  ])(
    'when %s %s is asked on the metrics port, then it is %i %s: that port serves metrics and only metrics',
    async (method, target, status, code) => {
      const res = await rawRequest(rig.bff.metricsUrl!, target, { method });
      expect(res.status).toBe(status);
      expect(res.code).toBe(code);
    },
  );
});

describe('METRICS_PORT=off (a real service process)', () => {
  test('when metrics are switched off, then the service starts without a metrics listener and the public port still has no /metrics', async () => {
    const rig = await startGuardRig('metrics-off', { METRICS_PORT: 'off' });
    try {
      expect(rig.bff.metricsUrl).toBeUndefined();
      expect(rig.bff.output()).toMatch(/"msg":"listening"/);
      const res = await rawRequest(rig.bff.url, '/metrics');
      expect(res.status).toBe(404);
      expect(res.code).toBe('not_found');
    } finally {
      await rig.close();
    }
  });
});
