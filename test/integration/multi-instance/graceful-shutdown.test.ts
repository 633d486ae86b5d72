import { once } from 'node:events';
import http from 'node:http';
import { connect } from 'node:net';
import { Client } from 'undici';
import type { ServiceProcess } from '../../helpers/service-process.js';
import { untilMatch } from '../../helpers/wait.js';
import { CSRF, login, startCluster, type Cluster } from './cluster.js';
import { openStream } from './stream-client.js';

const streamPath = (chunks: number) => `/api/query/social/stream?chunks=${chunks}&delayMs=100&chunkBytes=256`;
/** A drain's deadline (SHUTDOWN_TIMEOUT_MS) far past a 20-chunk stream (about 2 s). */
const LONG_DRAIN_MS = 30_000;
/** A drain's deadline that a long stream outlasts. */
const SHORT_DRAIN_MS = 1000;
/** About 30 s: a stream that only a deadline or a second signal ends, by a wide margin. */
const LONG_STREAM = streamPath(300);
const LONG_STREAM_MS = 300 * 100;

/** Waits for the service's "shutting down" line: the signal arrived and the drain began. */
const shutdownBegan = (instance: ServiceProcess) =>
  untilMatch('the shutdown to begin', () => instance.output(), /"msg":"shutting down"/);

/** Whether a brand-new TCP connection to the port is accepted or refused. */
/** 'accepted', 'refused', or the socket error's code. */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('error', (err: NodeJS.ErrnoException) =>
      resolve(err.code === 'ECONNREFUSED' ? 'refused' : String(err.code)),
    );
  });
}

/** Exit code and the time it came, watched from before the signal is sent. */
function watchExit(instance: ServiceProcess): Promise<{ code: number | null; at: number }> {
  return once(instance.proc, 'exit').then(([code]) => ({ code: code as number | null, at: Date.now() }));
}

describe('graceful shutdown of a service process', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({ instances: 0, label: 'multi-shutdown' });
  });
  afterAll(() => cluster?.close());

  test('when SIGTERM arrives while a stream is in flight on a keep-alive connection, then new connections are refused at once, the stream completes intact and the process exits 0 as soon as it is done', async () => {
    const instance = await cluster.add({ SHUTDOWN_TIMEOUT_MS: String(LONG_DRAIN_MS) });
    const cookie = await login(instance.url, cluster.secret);
    // Keeps idle connections open indefinitely, like a browser or proxy would within its own timeout.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const stream = openStream(instance.url, streamPath(20), cookie, agent);
    await stream.started;
    const exited = watchExit(instance);

    instance.proc.kill('SIGTERM');
    await shutdownBegan(instance);

    expect(await tryConnect(instance.port)).toBe('refused');
    const streamed = await stream.done;
    const endedAt = Date.now();
    expect(streamed.complete).toBe(true);
    const results = (JSON.parse(streamed.body) as { results: Array<{ chunk: number }> }).results;
    expect(results.map((r) => r.chunk)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    const exit = await exited;
    agent.destroy();
    expect(exit.code).toBe(0);
    expect(exit.at).toBeGreaterThanOrEqual(endedAt - 50);
    // Not held open until the deadline: the drain ended with the stream (half the deadline leaves room for a
    // starved process's last steps and still tells the two apart).
    expect(exit.at - endedAt).toBeLessThan(LONG_DRAIN_MS / 2);
    expect(instance.output()).not.toContain('shutdown deadline reached');
    // Redis and the upstream pool are closed before the final line.
    expect(instance.output()).toMatch(/"msg":"shutting down"[\s\S]*"msg":"stopped"/);
  });

  test('when a kept-alive connection is busy at SIGTERM, then a request still arriving on it gets /readyz 503 draining with Connection: close, and the process exits when the stream ends, not at the deadline', async () => {
    const instance = await cluster.add({ SHUTDOWN_TIMEOUT_MS: String(LONG_DRAIN_MS) });
    const cookie = await login(instance.url, cluster.secret);
    // One connection kept alive for a minute that carries a second request while the first streams, as proxies do.
    const client = new Client(instance.url, { pipelining: 2, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
    try {
      const stream = await client.request({ method: 'GET', path: streamPath(20), headers: { ...CSRF, cookie } });
      const exited = watchExit(instance);
      instance.proc.kill('SIGTERM');
      await shutdownBegan(instance);

      const readyz = client.request({ method: 'GET', path: '/readyz' });
      const streamed = JSON.parse(await stream.body.text()) as { results: unknown[] };
      const streamEndedAt = Date.now();
      const ready = await readyz;

      expect(streamed.results).toHaveLength(20);
      expect(ready.statusCode).toBe(503);
      expect(await ready.body.json()).toMatchObject({ status: 'not_ready', reason: 'draining' });
      expect(ready.headers.connection).toBe('close');
      const exit = await exited;
      expect(exit.code).toBe(0);
      expect(exit.at - streamEndedAt).toBeLessThan(LONG_DRAIN_MS / 2);
      expect(instance.output()).not.toContain('shutdown deadline reached');
    } finally {
      await client.destroy();
    }
  });

  test('when SIGINT arrives with a stream longer than SHUTDOWN_TIMEOUT_MS, then the stream is cut at the deadline and the process still exits 0', async () => {
    const instance = await cluster.add({ SHUTDOWN_TIMEOUT_MS: String(SHORT_DRAIN_MS) });
    const cookie = await login(instance.url, cluster.secret);
    const stream = openStream(instance.url, LONG_STREAM, cookie);
    await stream.started;
    const exited = watchExit(instance);

    const signalledAt = Date.now();
    instance.proc.kill('SIGINT');
    const exit = await exited;

    expect(exit.code).toBe(0);
    expect(exit.at - signalledAt).toBeGreaterThanOrEqual(SHORT_DRAIN_MS - 100); // it did wait for the drain
    expect(exit.at - signalledAt).toBeLessThan(LONG_STREAM_MS / 2); // by the deadline, well short of the stream
    const streamed = await stream.done;
    expect(streamed.complete).toBe(false);
    expect(instance.output()).toContain('shutdown deadline reached');
  });

  test('when a second SIGTERM arrives during the drain, then the process exits at once with a non-zero code', async () => {
    const instance = await cluster.add({ SHUTDOWN_TIMEOUT_MS: String(LONG_DRAIN_MS) });
    const cookie = await login(instance.url, cluster.secret);
    const stream = openStream(instance.url, LONG_STREAM, cookie);
    await stream.started;
    const exited = watchExit(instance);

    instance.proc.kill('SIGTERM');
    await shutdownBegan(instance);
    const secondAt = Date.now();
    instance.proc.kill('SIGTERM');
    const exit = await exited;

    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    // Neither the 30 s stream nor the 30 s deadline: a third of either.
    expect(exit.at - secondAt).toBeLessThan(Math.min(LONG_STREAM_MS, LONG_DRAIN_MS) / 3);
    expect((await stream.done).complete).toBe(false);
  });
});
