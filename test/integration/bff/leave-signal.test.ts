import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { storeCallOf } from '../../../src/http/session/leave-signal.js';
import { until } from '../../helpers/wait.js';

/**
 * A request's store call (http/session/leave-signal.ts): its signal aborts when the client leaves before the
 * answer is sent in full, never after; and it is made only when a store command asks for it. Over a real
 * loopback server and client.
 */
describe("a request's store call", () => {
  let server: Server;
  let port: number;
  /** The handler of the next request: holds the response until the test answers or the client leaves. */
  let handle: (res: ServerResponse) => void = () => undefined;

  beforeAll(async () => {
    server = createServer((_req, res) => handle(res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** A request whose response the test holds; `leave()` is the client going away before the answer. */
  async function held(): Promise<{ res: ServerResponse; leave: () => void; answered: Promise<number> }> {
    const arrived = new Promise<ServerResponse>((resolve) => (handle = resolve));
    const req = request({ host: '127.0.0.1', port, path: '/', agent: false });
    const answered = new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
    });
    answered.catch(() => undefined);
    req.end();
    return { res: await arrived, leave: () => req.destroy(), answered };
  }

  test('when the client leaves before the answer, then the signal aborts; one read after that is aborted at once', async () => {
    const { res, leave } = await held();
    const call = storeCallOf(res);
    const signal = call.signal!;
    expect(signal.aborted).toBe(false);
    leave();
    await until('the signal to abort', () => signal.aborted);
    // A store call first read once the client is gone (a command that starts waiting later).
    expect(storeCallOf(res).signal!.aborted).toBe(true);
  });

  test('when the answer was sent in full, then the signal never aborts, though the connection closes', async () => {
    const { res, answered } = await held();
    const socket = res.socket!;
    const closed = once(res, 'close');
    const early = storeCallOf(res).signal!;
    res.end('done');
    expect(await answered).toBe(200);
    const late = storeCallOf(res).signal!;
    socket.destroy();
    await closed;
    await until('the connection to close', () => socket.destroyed);
    expect([early.aborted, late.aborted]).toEqual([false, false]);
  });

  test('when nothing reads the signal, then no AbortController is made and the response gets no listener', async () => {
    const { res, answered } = await held();
    const before = res.listenerCount('close');
    const call = storeCallOf(res);
    expect(res.listenerCount('close')).toBe(before);
    // Read: one listener, and the same signal on every read.
    expect(call.signal).toBe(call.signal);
    expect(res.listenerCount('close')).toBe(before + 1);
    res.end();
    expect(await answered).toBe(200);
  });
});
