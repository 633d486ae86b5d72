import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import supertest from 'supertest';
import { startSilentServer } from '../../helpers/fault-proxy.js';
import { startTestIdp, type TestIdp } from '../../helpers/oidc-provider.js';
import { freePort } from '../../helpers/ports.js';
import { startUntrustedTlsServer } from '../../helpers/tls-cert.js';
import { until } from '../../helpers/wait.js';
import { logLines, type LogLine } from '../observability/log-lines.js';
import {
  REDIRECT_URI,
  dropPrefix,
  newPrefix,
  startCountingUpstream,
  startSsoService,
  type CountingUpstream,
  type SsoService,
} from './sso-rig.js';

// The identity provider's faults name their cause and the setting that fixes it (issue 43): refused (a closed
// port), timing out (a port that accepts and never answers), DNS (a name under .invalid) and TLS (a certificate
// nobody trusts), each started for real at LOG_LEVEL=info. For each: the login's answer (503 idp_unavailable)
// and its access line, one line with the fault code, the address tried, OIDC_ISSUER and a hint, no stack
// trace, and /readyz: still ready (the IdP is informational) with `details.idp` naming the fault, no address.

interface IdpFault {
  issuer: string;
  fault: string;
  address: string;
  setting: string;
  hint: string;
  reason: string;
  codes?: string[];
}

describe('identity provider faults are named', () => {
  let idp: TestIdp;
  let upstream: CountingUpstream;
  let svc: SsoService | undefined;
  let prefix: string;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    // The client registration the service is configured with; the faults are at OIDC_ISSUER, never here.
    idp = await startTestIdp({ redirectUris: [REDIRECT_URI] });
    upstream = await startCountingUpstream();
  });
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
    await dropPrefix(prefix);
  });
  afterAll(async () => {
    for (const close of closers) await close();
    await upstream.close();
    await idp.close();
  });

  const lines = (): LogLine[] => logLines(svc!.logs());

  async function expectNamed(expected: IdpFault): Promise<void> {
    prefix = newPrefix();
    svc = await startSsoService({
      idp,
      upstream: upstream.url,
      prefix,
      env: { OIDC_ISSUER: expected.issuer, LOG_LEVEL: 'info', FAULT_LOG_INTERVAL_MS: '1000' },
    });
    const app = svc.service.app;
    const res = await supertest(app).get('/auth/oidc/login').set('Accept', 'application/json');
    expect([res.status, (res.body as { error?: { code: string } }).error?.code]).toEqual([503, 'idp_unavailable']);
    const id = String(res.headers['x-request-id']);

    const line = await until(`the ${expected.fault} line`, () => lines().find((l) => l.fault === expected.fault));
    expect(line).toMatchObject({ level: 40, dependency: 'idp', address: expected.address, setting: expected.setting });
    expect(String(line.hint)).toContain(expected.hint);
    if (expected.codes) expect(expected.codes).toContain(line.code);
    const access = await until(`the access line of ${id}`, () =>
      lines().find((l) => l.msg === 'request' && l.requestId === id),
    );
    expect(access).toMatchObject({ status: 503, error: 'idp_unavailable' });

    // Ready all the same (secret logins and live sessions do not need the IdP), and saying why SSO fails.
    const ready = await supertest(app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      checks: { idp: 'unavailable', store: 'ok', upstream: 'ok' },
      details: { idp: { fault: expected.fault, setting: expected.setting, reason: expected.reason } },
    });
    expect(ready.text).not.toContain(expected.address);
    expect(svc.logs()).not.toMatch(/"stack":|\\n\s+at /);
    expect(svc.logs()).not.toContain(idp.clientSecret);
  }

  test('when nothing listens at OIDC_ISSUER, then SSO login is 503 and the log and /readyz name idp_refused', async () => {
    const port = await freePort();
    await expectNamed({
      issuer: `http://127.0.0.1:${port}`,
      fault: 'idp_refused',
      address: `127.0.0.1:${port}`,
      setting: 'OIDC_ISSUER',
      hint: `nothing accepts connections at 127.0.0.1:${port}`,
      reason: 'connection refused',
      codes: ['ECONNREFUSED'],
    });
  });

  test('when OIDC_ISSUER accepts connections and never answers, then SSO login is 503 at the discovery deadline and the log and /readyz name idp_timeout', async () => {
    // The login waits for the discovery's own deadline (10 s, src/oidc/idp.ts), then answers.
    const silent = await startSilentServer();
    closers.push(silent.close);
    await expectNamed({
      issuer: `http://127.0.0.1:${silent.port}`,
      fault: 'idp_timeout',
      address: `127.0.0.1:${silent.port}`,
      setting: 'OIDC_ISSUER',
      hint: 'did not answer in time',
      reason: 'no answer in time',
    });
    // Set-up: the discovery reached the silent port (a timeout, not a refusal).
    expect(silent.accepted()).toBeGreaterThan(0);
  });

  test("when OIDC_ISSUER's host does not resolve, then SSO login is 503 and the log and /readyz name idp_dns", async () => {
    await expectNamed({
      issuer: 'http://idp.tigergraph-bff-test.invalid:8080/realms/x',
      fault: 'idp_dns',
      address: 'idp.tigergraph-bff-test.invalid:8080',
      setting: 'OIDC_ISSUER',
      hint: 'does not resolve',
      reason: 'host name not found',
      codes: ['ENOTFOUND', 'EAI_AGAIN'],
    });
  });

  test('when the IdP presents a certificate no CA vouches for, then SSO login is 503 and the log and /readyz name idp_tls and NODE_EXTRA_CA_CERTS', async () => {
    const tls = await startUntrustedTlsServer();
    closers.push(tls.close);
    await expectNamed({
      issuer: `https://127.0.0.1:${tls.port}`,
      fault: 'idp_tls',
      address: `127.0.0.1:${tls.port}`,
      setting: 'OIDC_ISSUER, NODE_EXTRA_CA_CERTS',
      hint: 'a private CA goes in NODE_EXTRA_CA_CERTS',
      reason: 'TLS handshake failed',
    });
  });
});
