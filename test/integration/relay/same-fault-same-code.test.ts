import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import net, { type AddressInfo, type Socket } from 'node:net';
import { createTokenApi } from '../../../packages/client/src/restpp-client.js';
import { expectAppError } from '../tokens/expect-app-error.js';
import { newSid, SESSION_TTL_MS, startRig, type Rig } from '../tokens/rig.js';
import { poll } from '../../helpers/wait.js';
import { rawRequest } from '../../helpers/raw-request.js';
import { startRelayApp } from './relay-harness.js';

/** A loopback stand-in for a TigerGraph server that misbehaves one way, and counts who reached it. */
interface FaultServer {
  url: string;
  requests: number;
  close(): Promise<void>;
}

type Fault = 'closed port' | 'never answers' | 'resets' | 'closes without answering' | 'answers garbage';

const BEHAVIOUR: Record<Exclude<Fault, 'closed port'>, (socket: Socket) => void> = {
  'never answers': () => undefined,
  resets: (socket) => socket.resetAndDestroy(),
  'closes without answering': (socket) => socket.end(),
  'answers garbage': (socket) => socket.end('garbage\r\n\r\n'),
};

async function startFault(fault: Fault): Promise<FaultServer> {
  const sockets = new Set<Socket>();
  const state: FaultServer = { url: '', requests: 0, close: async () => undefined };
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('data', () => {
      state.requests++;
      if (fault !== 'closed port') BEHAVIOUR[fault](socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  if (fault === 'closed port') await state.close(); // bound once by us, then released: nothing listens
  return state;
}

/**
 * The upstream timeout: short where the fault is a server that never answers (each call waits it out), long
 * where the server answers at once, so that a starved test process (server and client share it, and Node runs
 * expired timers before it reads sockets) still reads the answer before its timer: the fault under test.
 */
const timeoutFor = (fault: Fault): number => (fault === 'never answers' ? 300 : 5000);

/** The server's count once it reaches `count` (a request sent may be read a little after its call failed), or after 2 s. */
async function requestsReaching(server: FaultServer, count: number): Promise<number> {
  await poll(async () => server.requests >= count, 2000, `${count} requests`).catch(() => undefined);
  return server.requests;
}

describe('one fault, one code: the relay and token calls classify upstream failures alike', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ store: 'memory', label: 'same-fault' });
  });
  afterAll(async () => {
    await rig.close();
  });

  it.each([
    ['closed port', 502, 'upstream_unavailable', 0],
    ['never answers', 504, 'upstream_timeout', 1],
    ['resets', 502, 'upstream_unavailable', 1],
    ['closes without answering', 502, 'upstream_unavailable', 1],
    ['answers garbage', 502, 'upstream_error', 1],
  ] as const)(
    'when the data server %s, then the relay and the token calls all answer %i %s',
    async (fault, status, code, reached) => {
      const server = await startFault(fault);
      const relay = await startRelayApp(server.url, { upstreamTimeoutMs: timeoutFor(fault) });
      const api = createTokenApi({
        restppUrl: server.url,
        gsqlUrl: server.url,
        version: rig.sim.version,
        timeoutMs: timeoutFor(fault),
      });
      try {
        const answer = await rawRequest(relay.port, '/api/echo');
        expect([answer.status, answer.code]).toEqual([status, code]);
        expect(await requestsReaching(server, reached)).toBe(reached);

        const broker = rig.broker({ api });
        await expectAppError(broker.mint(rig.secret), status, code); // login: verifying the secret
        await expectAppError(broker.token(newSid(), rig.secret, SESSION_TTL_MS), status, code); // a session's token
        expect(await requestsReaching(server, reached * 3)).toBe(reached * 3);
      } finally {
        await api.close();
        await relay.close();
        await server.close();
      }
    },
  );
});
