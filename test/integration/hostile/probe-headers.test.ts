import { securityHeaders } from '../../../src/http/pipeline/security-headers.js';
import { startGuardRig, type GuardRig } from './guard-rig.js';
import { rawRequest } from '../../helpers/raw-request.js';

describe('security headers on probe answers (a real service process)', () => {
  let rig: GuardRig;
  beforeAll(async () => {
    rig = await startGuardRig('probe-headers');
  });
  afterAll(() => rig?.close());

  test('when /healthz, /readyz and the metrics port answer, then each carries the same security headers as any other answer', async () => {
    const reference = await rawRequest(rig.bff.url, '/auth/session');
    expect(reference.status).toBe(401);
    const expected = securityHeaders().http; // plain http here, as the probes and the scraper use
    expect(expected.length).toBeGreaterThan(5);
    for (const [name, value] of expected) expect(reference.headers[name.toLowerCase()]).toBe(value);

    const answers = {
      healthz: await rawRequest(rig.bff.url, '/healthz'),
      readyz: await rawRequest(rig.bff.url, '/readyz'),
      metrics: await rawRequest(rig.bff.metricsUrl ?? rig.bff.url, '/metrics'),
    };
    expect(answers.healthz.status).toBe(200);
    expect(answers.readyz.status).toBe(200);
    expect(answers.metrics.status).toBe(200);
    for (const [probe, res] of Object.entries(answers)) {
      const missing = expected
        .filter(([name, value]) => res.headers[name.toLowerCase()] !== value)
        .map(([name]) => `${probe}: ${name}`);
      expect(missing).toEqual([]);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });
});
