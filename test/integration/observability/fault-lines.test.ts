import { startRig, type Rig, type RigOptions } from '../../helpers/app-rig.js';
import { startSilentServer } from '../../helpers/fault-proxy.js';
import { freePort } from '../../helpers/ports.js';
import { startUntrustedTlsServer } from '../../helpers/tls-cert.js';
import { until } from '../../helpers/wait.js';
import { logLines, type LogLine } from './log-lines.js';

// Expected faults name their cause and the setting that fixes it (issue 43, items 1 and 2): Redis, TigerGraph's
// data server and its admin server refused (a closed port), timing out (a port that accepts and never answers),
// DNS (a name under .invalid) and TLS failures (a certificate nobody trusts, or https to a plain port), each
// started for real. For each: the answer's code, one log line with a stable `fault` code, the address tried, the
// setting and a hint, no stack trace at LOG_LEVEL=info, the access line's `error`, and /readyz's details (which
// dependency, what fault, which setting; no address). The IdP's are in test/integration/oidc/idp-faults.test.ts.

type Line = LogLine;
const linesOf = (rig: Rig): Line[] => logLines(rig.logs());

const INFO = { LOG_LEVEL: 'info', FAULT_LOG_INTERVAL_MS: '1000' };

async function rigWith(options: RigOptions): Promise<Rig> {
  return startRig({ ...options, env: { ...INFO, ...options.env } });
}

/** A TigerGraph address that is not the simulator: `url` only, nothing in between. */
const dataServerAt =
  (url: string): RigOptions['dataServer'] =>
  () =>
    Promise.resolve({ url, close: () => Promise.resolve() });

async function login(rig: Rig) {
  const res = await rig.agent().post('/auth/login').send({ secret: rig.secret, graph: 'social' });
  return {
    status: res.status,
    code: (res.body as { error?: { code: string } }).error?.code,
    id: String(res.headers['x-request-id']),
  };
}

/** No line carries a stack trace (at LOG_LEVEL=info an expected fault never does). */
function expectNoStacks(rig: Rig): void {
  expect(rig.logs()).not.toMatch(/"stack":|\\n\s+at /);
}

async function expectAccessLine(rig: Rig, id: string, status: number, error: string): Promise<void> {
  const line = await until(`the access line of ${id}`, () =>
    linesOf(rig).find((l) => l.msg === 'request' && l.requestId === id),
  );
  expect(line).toMatchObject({ status, error });
}

/** What one fault must show: the answer, its line (fault code, address, setting, hint), the access line, /readyz. */
interface Named {
  answer: { status: number; code: string };
  fault: string;
  address: string;
  setting: string;
  hint: string;
  /** The /readyz check that names it, its reason, and whether it gates readiness (503) or is informational. */
  check: string;
  reason: string;
  gating: boolean;
  /** The error codes the line may carry (a resolver may say ENOTFOUND or EAI_AGAIN). */
  codes?: string[];
}

/** Logs in and asserts every part of a named fault (`expected`); the answer's log lines carry no stack trace. */
async function expectNamed(rig: Rig, expected: Named): Promise<void> {
  const res = await login(rig);
  expect(res).toMatchObject(expected.answer);
  const line = await until(`the ${expected.fault} line`, () => linesOf(rig).find((l) => l.fault === expected.fault));
  expect(line).toMatchObject({ level: 40, address: expected.address, setting: expected.setting });
  expect(String(line.hint)).toContain(expected.hint);
  if (expected.codes) expect(expected.codes).toContain(line.code);
  await expectAccessLine(rig, res.id, expected.answer.status, expected.answer.code);
  const { body, text } = await readyzDetails(rig, expected.check, expected.gating ? 503 : 200);
  expect(body.checks[expected.check]).toBe('unavailable');
  expect(body.details?.[expected.check]).toEqual({
    fault: expected.fault,
    setting: expected.setting,
    reason: expected.reason,
  });
  expect(text).not.toContain(expected.address);
  expectNoStacks(rig);
}

async function readyzDetails(rig: Rig, check: string, status = 503) {
  return until(`/readyz to explain ${check}`, async () => {
    const res = await rig.agent().get('/readyz');
    const body = res.body as { checks: Record<string, string>; details?: Record<string, Line> };
    return res.status === status && body.details?.[check] ? { body, text: res.text } : undefined;
  });
}

describe('Redis faults', () => {
  let rig: Rig;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    rig = await rigWith({ store: `redis://:not-the-password@127.0.0.1:${port}` });
  });
  afterAll(() => rig.close());

  it('when nothing listens at REDIS_URL, then a login is 503 and the log names redis_refused, the address and REDIS_URL', async () => {
    const res = await login(rig);
    expect(res).toMatchObject({ status: 503, code: 'store_unavailable' });
    const outage = await until('the outage line', () =>
      linesOf(rig).find((l) => l.msg === 'redis unavailable; reconnecting'),
    );
    expect(outage).toMatchObject({
      level: 40,
      fault: 'redis_refused',
      address: `127.0.0.1:${port}`,
      setting: 'REDIS_URL',
      code: 'ECONNREFUSED',
    });
    expect(String(outage.hint)).toContain(`nothing accepts connections at 127.0.0.1:${port}`);
    // The login's answer, as a fault line of its own (through the fault log), and its access line's code.
    await until('the login fault line', () =>
      linesOf(rig).find((l) => l.fault === 'redis_refused' && l.msg !== 'redis unavailable; reconnecting'),
    );
    await expectAccessLine(rig, res.id, 503, 'store_unavailable');
    expectNoStacks(rig);
    expect(rig.logs()).not.toContain('not-the-password');
  });

  it('when Redis is refused, then /readyz says the store fails with redis_refused and REDIS_URL, and no address', async () => {
    const { body, text } = await readyzDetails(rig, 'store');
    expect(body.checks.store).toBe('unavailable');
    expect(body.details?.store).toEqual({ fault: 'redis_refused', setting: 'REDIS_URL', reason: 'connection refused' });
    expect(text).not.toContain(`127.0.0.1:${port}`);
  });

  it('when 40 logins meet the refused Redis, then the log has a line or two for them with a count, not 40', async () => {
    const before = linesOf(rig).length;
    const answers = await Promise.all(Array.from({ length: 40 }, () => login(rig)));
    expect(answers.every((a) => a.status === 503)).toBe(true);
    const faultLines = await until('the count of the storm', () => {
      const found = linesOf(rig)
        .slice(before)
        .filter((l) => l.fault === 'redis_refused');
      return found.some((l) => typeof l.repeats === 'number') ? found : undefined;
    });
    expect(faultLines.length).toBeLessThan(10);
  });
});

describe('Redis faults other than a closed port', () => {
  const rigs: Rig[] = [];
  const closers: (() => Promise<void>)[] = [];
  // The silent port first: a client still waiting on it (the rig's clean-up of its keys) then sees it refused.
  afterAll(async () => {
    for (const close of closers) await close();
    for (const rig of rigs) await rig.close();
  });
  // A password in the URL, so every case also shows it never reaches a line.
  const rigAt = async (url: string) => {
    const rig = await rigWith({ store: url, env: { STORE_FAILOVER_WAIT_MS: '0' } });
    rigs.push(rig);
    return rig;
  };
  const redis = { answer: { status: 503, code: 'store_unavailable' }, check: 'store', gating: true };

  it('when REDIS_URL accepts connections and never answers (black-holed), then the log and /readyz name redis_timeout', async () => {
    const silent = await startSilentServer();
    closers.push(silent.close);
    const rig = await rigAt(`redis://:not-the-password@127.0.0.1:${silent.port}`);
    // Set-up: the service's connection reached the silent port (a timeout, not a refusal).
    expect(silent.accepted()).toBeGreaterThan(0);
    await expectNamed(rig, {
      ...redis,
      fault: 'redis_timeout',
      address: `127.0.0.1:${silent.port}`,
      setting: 'REDIS_URL',
      hint: 'did not answer in time',
      reason: 'no answer in time',
    });
    expect(rig.logs()).not.toContain('not-the-password');
  });

  it("when REDIS_URL's host does not resolve, then the log and /readyz name redis_dns", async () => {
    const rig = await rigAt('redis://:not-the-password@redis.tigergraph-bff-test.invalid:6379');
    await expectNamed(rig, {
      ...redis,
      fault: 'redis_dns',
      address: 'redis.tigergraph-bff-test.invalid:6379',
      setting: 'REDIS_URL',
      hint: 'does not resolve',
      reason: 'host name not found',
      codes: ['ENOTFOUND', 'EAI_AGAIN'],
    });
    expect(rig.logs()).not.toContain('not-the-password');
  });

  it('when rediss:// meets a certificate no CA vouches for, then the log and /readyz name redis_tls and REDIS_CA_FILE', async () => {
    const tls = await startUntrustedTlsServer();
    closers.push(tls.close);
    const rig = await rigAt(`rediss://:not-the-password@127.0.0.1:${tls.port}`);
    await expectNamed(rig, {
      ...redis,
      fault: 'redis_tls',
      address: `127.0.0.1:${tls.port}`,
      setting: 'REDIS_URL, REDIS_CA_FILE',
      hint: 'a private CA goes in REDIS_CA_FILE',
      reason: 'TLS handshake failed',
    });
    expect(rig.logs()).not.toContain('not-the-password');
  });
});

describe('TigerGraph faults', () => {
  const rigs: Rig[] = [];
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const rig of rigs) await rig.close();
    for (const close of closers) await close();
  });
  const rigAt = async (url: string, env: Record<string, string> = {}) => {
    const rig = await rigWith({ dataServer: dataServerAt(url), env });
    rigs.push(rig);
    return rig;
  };

  it('when nothing listens at TG_RESTPP_URL, then start-up logs it, a login is 502 and /readyz names tigergraph_refused', async () => {
    const port = await freePort();
    const rig = await rigAt(`http://127.0.0.1:${port}`);
    expect(await rig.service.startupProbe).toMatchObject({ reachable: false });
    // The start-up probe's line comes before any request.
    const first = await until('the start-up fault line', () =>
      linesOf(rig).find((l) => l.fault === 'tigergraph_refused'),
    );
    expect(first).toMatchObject({
      level: 40,
      address: `http://127.0.0.1:${port}`,
      setting: 'TG_RESTPP_URL',
      code: 'ECONNREFUSED',
      dependency: 'tigergraph',
    });
    expect(String(first.msg)).toBe(
      `TigerGraph's data server (RESTPP) at http://127.0.0.1:${port} (TG_RESTPP_URL): connection refused (ECONNREFUSED)`,
    );
    const res = await login(rig);
    expect(res).toMatchObject({ status: 502, code: 'upstream_unavailable' });
    await expectAccessLine(rig, res.id, 502, 'upstream_unavailable');
    const { body } = await readyzDetails(rig, 'upstream');
    expect(body.details?.upstream).toEqual({
      fault: 'tigergraph_refused',
      setting: 'TG_RESTPP_URL',
      reason: 'connection refused',
    });
    expectNoStacks(rig);
  });

  it('when TG_RESTPP_URL accepts and never answers, then a login is 504 and the log names tigergraph_timeout', async () => {
    const silent = await startSilentServer();
    closers.push(silent.close);
    const rig = await rigAt(`http://127.0.0.1:${silent.port}`, { UPSTREAM_TIMEOUT_MS: '2000' });
    const res = await login(rig);
    expect(res).toMatchObject({ status: 504, code: 'upstream_timeout' });
    const line = await until('the timeout line', () => linesOf(rig).find((l) => l.fault === 'tigergraph_timeout'));
    expect(line).toMatchObject({ address: `http://127.0.0.1:${silent.port}`, setting: 'TG_RESTPP_URL' });
    expect(String(line.hint)).toContain('did not answer in time');
    await expectAccessLine(rig, res.id, 504, 'upstream_timeout');
    const { body } = await readyzDetails(rig, 'upstream');
    expect(body.details?.upstream).toMatchObject({ fault: 'tigergraph_timeout', setting: 'TG_RESTPP_URL' });
    expectNoStacks(rig);
  });

  const data = { answer: { status: 502, code: 'upstream_unavailable' }, check: 'upstream', gating: true };

  it("when TG_RESTPP_URL's host does not resolve, then the log and /readyz name tigergraph_dns and the setting", async () => {
    const rig = await rigAt('http://tigergraph-bff-test.invalid:9000');
    await expectNamed(rig, {
      ...data,
      fault: 'tigergraph_dns',
      address: 'http://tigergraph-bff-test.invalid:9000',
      setting: 'TG_RESTPP_URL',
      hint: 'does not resolve',
      reason: 'host name not found',
      codes: ['ENOTFOUND', 'EAI_AGAIN'],
    });
  });

  it('when TG_RESTPP_URL says https to a plain-http port, then the log and /readyz name tigergraph_tls with TG_CA_FILE', async () => {
    const plain = await rigWith({});
    rigs.push(plain);
    // The simulator's own data port speaks plain http.
    const url = plain.sim.restppUrl.replace(/^http:/, 'https:');
    const rig = await rigAt(url);
    await expectNamed(rig, {
      ...data,
      fault: 'tigergraph_tls',
      address: new URL(url).origin,
      setting: 'TG_RESTPP_URL, TG_CA_FILE',
      hint: 'right scheme for that port',
      reason: 'TLS handshake failed',
    });
  });

  it('when TigerGraph answers, then start-up logs it reachable with the version line its answer shows', async () => {
    const rig = await rigWith({});
    rigs.push(rig);
    const probe = await rig.service.startupProbe;
    expect(probe).toMatchObject({ reachable: true, disagreement: null });
    const line = await until('the reachable line', () =>
      linesOf(rig).find((l) => typeof l.msg === 'string' && l.msg.startsWith('TigerGraph reachable at')),
    );
    expect(line).toMatchObject({ setting: 'TG_RESTPP_URL', configuredVersion: rig.sim.version });
    const ready = await rig.agent().get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).not.toHaveProperty('details');
  });
});

// TigerGraph's admin server (GSQL): where 4.1+ asks for tokens (and password logins go, any version). A 4.1
// simulator's data server answers; only TG_GSQL_URL is wrong. /readyz reports the admin server without going
// unready (every replica shares it; live sessions do not need it), as it does the IdP.
describe("TigerGraph's admin server faults", () => {
  const rigs: Rig[] = [];
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const rig of rigs) await rig.close();
    for (const close of closers) await close();
  });
  const rigAt = async (gsqlUrl: string, env: Record<string, string> = {}) => {
    const rig = await rigWith({ sim: { version: '4.1.0' }, gsqlUrl, env });
    rigs.push(rig);
    return rig;
  };
  const admin = { answer: { status: 502, code: 'upstream_unavailable' }, check: 'admin', gating: false };

  it('when nothing listens at TG_GSQL_URL, then a 4.1 login is 502 and the log and /readyz name tigergraph_admin_refused', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const rig = await rigAt(url);
    await expectNamed(rig, {
      ...admin,
      fault: 'tigergraph_admin_refused',
      address: url,
      setting: 'TG_GSQL_URL',
      hint: `nothing accepts connections at ${url}`,
      reason: 'connection refused',
      codes: ['ECONNREFUSED'],
    });
    // The data server is fine, and readiness says so.
    expect((await rig.agent().get('/readyz')).body.checks).toMatchObject({ store: 'ok', upstream: 'ok' });
  });

  it('when TG_GSQL_URL accepts and never answers, then a 4.1 login is 504 and the log and /readyz name tigergraph_admin_timeout', async () => {
    const silent = await startSilentServer();
    closers.push(silent.close);
    const url = `http://127.0.0.1:${silent.port}`;
    const rig = await rigAt(url, { UPSTREAM_TIMEOUT_MS: '2000' });
    await expectNamed(rig, {
      ...admin,
      answer: { status: 504, code: 'upstream_timeout' },
      fault: 'tigergraph_admin_timeout',
      address: url,
      setting: 'TG_GSQL_URL',
      hint: 'did not answer in time',
      reason: 'no answer in time',
    });
  });

  it("when TG_GSQL_URL's host does not resolve, then a 4.1 login is 502 and the log and /readyz name tigergraph_admin_dns", async () => {
    const url = 'http://gsql.tigergraph-bff-test.invalid:14240';
    const rig = await rigAt(url);
    await expectNamed(rig, {
      ...admin,
      fault: 'tigergraph_admin_dns',
      address: url,
      setting: 'TG_GSQL_URL',
      hint: 'does not resolve',
      reason: 'host name not found',
      codes: ['ENOTFOUND', 'EAI_AGAIN'],
    });
  });

  it('when TG_GSQL_URL says https to a plain-http port, then the log and /readyz name tigergraph_admin_tls with TG_CA_FILE', async () => {
    const plain = await rigWith({});
    rigs.push(plain);
    const url = new URL(plain.sim.gsqlUrl.replace(/^http:/, 'https:')).origin;
    const rig = await rigAt(url);
    await expectNamed(rig, {
      ...admin,
      fault: 'tigergraph_admin_tls',
      address: url,
      setting: 'TG_GSQL_URL, TG_CA_FILE',
      hint: 'right scheme for that port',
      reason: 'TLS handshake failed',
    });
  });
});
