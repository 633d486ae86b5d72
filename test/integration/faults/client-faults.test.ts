/**
 * Other clients' latency while 50 misbehaving clients hold connections
 */
import { connect, type Socket } from 'node:net';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle } from '../../../src/simulator/types.js';
import { uniquePrefix } from '../../helpers/redis-prefix.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { dropPrefix, processEnv } from '../hostile/process-env.js';
import { call, login } from '../multi-instance/cluster.js';
import { recordFigure } from '../../helpers/figures.js';
import { until } from '../../helpers/wait.js';

/**
 * Client faults the hostile suite does not already cover (it has aborts mid-body, during a streamed
 * answer, malformed chunking and slow senders): aborts inside the headers and while the data server is
 * still working, readers that never read, and garbage pipelined behind valid requests. Each case ends
 * with the process up and another session served.
 */
describe('client faults (a real service process)', () => {
  let sim: SimulatorHandle;
  let bff: ServiceProcess;
  let prefix: string;
  let victim: string;
  let attacker: string;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    sim = await startSimulator({});
    prefix = uniquePrefix('faults-client');
    bff = await startServiceProcess({
      ...processEnv(prefix),
      TG_RESTPP_URL: sim.restppUrl,
      TG_GSQL_URL: sim.gsqlUrl,
      TG_VERSION: sim.version,
      RELAY_SESSION_CONCURRENCY: '200',
      RELAY_CREDENTIAL_CONCURRENCY: '200',
      MAX_BODY_BYTES: '1024',
    });
    // Another user: with one secret, the attacker's requests in flight would count against the victim too.
    victim = await login(bff.url, sim.createSecret({ alias: 'faults_client_victim' }).value);
    attacker = await login(bff.url, sim.createSecret({ alias: 'faults_client' }).value);
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await bff?.kill();
    await sim?.close();
    if (prefix) await dropPrefix(prefix);
  });

  const open = async (): Promise<Socket> => {
    const socket = connect(bff.port, '127.0.0.1');
    socket.on('error', () => undefined);
    sockets.push(socket);
    await new Promise((resolve) => socket.once('connect', resolve));
    return socket;
  };
  /** Requests the data server has seen for "METHOD /path" so far. */
  const seen = (call: string): number => sim.counts()[call] ?? 0;
  const head = (path: string, cookie: string): string =>
    `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Requested-With: XMLHttpRequest\r\nCookie: ${cookie}\r\n\r\n`;

  async function stillServing(what: string, started: number): Promise<void> {
    const start = Date.now();
    const answers = await Promise.all(Array.from({ length: 10 }, () => call(bff.url, '/api/echo', victim)));
    recordFigure(
      `client ${what}: process up, 10/10 other requests ${answers.every((a) => a.status === 200) ? 'ok' : 'NOT ok'} in ${Date.now() - start} ms (case took ${start - started} ms)`,
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(bff.proc.exitCode).toBeNull();
    expect(bff.output()).not.toMatch(/uncaught|unhandled|MaxListenersExceededWarning/i);
  }

  test('when 50 clients hang up inside their request headers, then the process stays up and others are served', async () => {
    const started = Date.now();
    const partial = head('/api/echo', attacker);
    for (let i = 0; i < 50; i++) {
      const socket = await open();
      socket.write(partial.slice(0, 10 + ((i * 7) % (partial.length - 12))));
      if (i % 2) socket.destroy();
      else socket.resetAndDestroy();
    }
    await stillServing('aborts inside the headers (50)', started);
  });

  test('when 50 clients leave while the data server is still working on their request, then each ends alone', async () => {
    const started = Date.now();
    const before = seen('GET /echo');
    for (let i = 0; i < 50; i++) (await open()).write(head('/api/echo?sleep=2', attacker));
    // The set-up holds: all 50 reached the data server, which is still working on them (2 s each).
    await until('the data server to get the 50 requests', () => seen('GET /echo') - before >= 50);
    for (const s of sockets.splice(0)) s.resetAndDestroy();
    await stillServing('aborts while waiting for the data server (50)', started);
  });

  test('when 50 clients send requests and never read the answers, then others are served meanwhile', async () => {
    const started = Date.now();
    const before = seen('GET /graph/social/vertices/Person');
    for (let i = 0; i < 50; i++) {
      const socket = await open();
      socket.pause();
      // Pipelined so the answers pile up against a reader that never reads.
      socket.write(head('/api/graph/social/vertices/Person', attacker).repeat(20));
    }
    // The set-up holds: every connection's requests are being relayed (at least its first reached the data server).
    await until(
      'the data server to get a request of each of the 50 connections',
      () => seen('GET /graph/social/vertices/Person') - before >= 50,
    );
    await stillServing('never-reading clients (50 x 20 pipelined)', started);
    for (const s of sockets.splice(0)) s.destroy();
  });

  test('when garbage follows valid pipelined requests on one connection, then that connection gets a 400 and is closed, and nobody else notices', async () => {
    const started = Date.now();
    const socket = await open();
    let got = '';
    socket.on('data', (chunk: Buffer) => (got += chunk.toString('latin1')));
    socket.write(head('/api/echo', attacker).repeat(3) + '\x00\xff GARBAGE \r\n\r\n'.repeat(50));
    await until('the service to close the connection', () => socket.destroyed || socket.readableEnded);
    const statuses = [...got.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
    // Node's parser meets the garbage in the same packet while the valid requests are still being relayed,
    // so their answers may die with the connection: the sender's own loss, like any reset it causes.
    expect(statuses.at(-1)).toBe(400);
    expect(statuses.slice(0, -1).every((status) => status === 200)).toBe(true);
    await stillServing('garbage pipelined behind 3 valid requests', started);
  });

  test('when one keep-alive connection sends body after body over MAX_BODY_BYTES, then each gets 413 and the connection gathers no listeners', async () => {
    const started = Date.now();
    const socket = await open();
    let got = '';
    socket.on('data', (chunk: Buffer) => (got += chunk.toString('latin1')));
    const over = 'x'.repeat(2048);
    const post =
      `POST /api/query/social/load HTTP/1.1\r\nHost: x\r\nX-Requested-With: XMLHttpRequest\r\nCookie: ${attacker}\r\n` +
      `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${over.length.toString(16)}\r\n${over}\r\n`;
    const answered = (): number => got.match(/HTTP\/1\.1 413/g)?.length ?? 0;
    for (let i = 1; i <= 15; i++) {
      // The answer comes while the body is still open (the service lingers); the body then ends, so the
      // connection stays usable for the next request.
      socket.write(post);
      await until(`a 413 for body ${i}`, () => answered() >= i || socket.destroyed, { intervalMs: 10 });
      socket.write('0\r\n\r\n');
    }
    recordFigure(
      `client 15 over-cap bodies on one keep-alive connection: ${answered()} answered 413, connection ${socket.destroyed ? 'closed' : 'open'}`,
    );
    expect(answered()).toBe(15);
    await stillServing('15 over-cap bodies on one connection', started);
  });
});
