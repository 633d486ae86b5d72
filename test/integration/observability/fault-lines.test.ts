import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { startRig, type Rig, type RigOptions } from '../../helpers/app-rig.js';
import { freePort } from '../../helpers/ports.js';
import { until } from '../../helpers/wait.js';
import { logLines, type LogLine } from './log-lines.js';

// Expected faults name their cause and the setting that fixes it (issue 43, items 1 and 2): Redis and TigerGraph
// refused, timing out, DNS and TLS failures, each started for real. For each: the answer's code, one log line
// with a stable `fault` code, the address tried, the setting and a hint, no stack trace at LOG_LEVEL=info,
// the access line's `error`, and /readyz's details (which dependency, what fault, which setting; no address).

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

/** Accepts connections and never answers: a data server that hangs (what a black-holed route looks like to us). */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: TcpServer = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

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

async function readyzDetails(rig: Rig, check: string) {
  return until(`/readyz to explain ${check}`, async () => {
    const res = await rig.agent().get('/readyz');
    const body = res.body as { checks: Record<string, string>; details?: Record<string, Line> };
    return res.status === 503 && body.details?.[check] ? { body, text: res.text } : undefined;
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
    const silent = await silentServer();
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

  it("when TG_RESTPP_URL's host does not resolve, then the log names tigergraph_dns and the setting", async () => {
    const rig = await rigAt('http://tigergraph-bff-test.invalid:9000');
    const res = await login(rig);
    expect(res).toMatchObject({ status: 502, code: 'upstream_unavailable' });
    const line = await until('the DNS line', () => linesOf(rig).find((l) => l.fault === 'tigergraph_dns'));
    expect(line).toMatchObject({ address: 'http://tigergraph-bff-test.invalid:9000', setting: 'TG_RESTPP_URL' });
    expect(['ENOTFOUND', 'EAI_AGAIN']).toContain(line.code);
    expect(String(line.hint)).toContain('does not resolve');
    expectNoStacks(rig);
  });

  it('when TG_RESTPP_URL says https to a plain-http port, then the log names tigergraph_tls with TG_CA_FILE', async () => {
    const plain = await rigWith({});
    rigs.push(plain);
    // The simulator's own data port speaks plain http.
    const rig = await rigAt(plain.sim.restppUrl.replace(/^http:/, 'https:'));
    const res = await login(rig);
    expect(res).toMatchObject({ status: 502, code: 'upstream_unavailable' });
    const line = await until('the TLS line', () => linesOf(rig).find((l) => l.fault === 'tigergraph_tls'));
    expect(line).toMatchObject({ setting: 'TG_RESTPP_URL, TG_CA_FILE' });
    expect(String(line.hint)).toContain('right scheme for that port');
    expectNoStacks(rig);
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
