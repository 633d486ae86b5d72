import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import { Agent, request as httpRequest } from 'node:http';
import type { Server, IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import { CSRF, startRig, type Rig } from '../../helpers/app-rig.js';

// A MaxListenersExceededWarning was seen in the bff tests: the cause was the tests mounting an
// express-session middleware per test over one store (express-session adds connect/disconnect listeners
// to its store at each mount). This pins that the service itself adds none per request: not on its
// Redis client, not on the process, not on a kept-alive connection.
const N = 200;
let rig: Rig;
let client: Redis | undefined;
let server: Server;
let base: string;
const sockets: Socket[] = [];

const listeners = (e: EventEmitter): number => e.eventNames().reduce<number>((n, name) => n + e.listenerCount(name), 0);

beforeAll(async () => {
  const original = Redis.prototype.connect;
  const spy = jest.spyOn(Redis.prototype, 'connect').mockImplementation(function (this: Redis, ...args) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- capturing the service's own client is the point
    client ??= this;
    return original.apply(this, args);
  });
  rig = await startRig();
  spy.mockRestore();
  server = rig.service.app.listen(0, '127.0.0.1');
  server.on('connection', (socket: Socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rig.close();
});

/** One request on the shared keep-alive agent; the status, once the body is read. */
function send(
  agent: Agent,
  method: string,
  path: string,
  headers: IncomingHttpHeaders,
  body?: string,
): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, agent, headers: { ...CSRF, ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test(`when ${N} requests run over one kept-alive connection, then no listeners pile up on the Redis client, the process or the connection`, async () => {
  expect(client).toBeDefined();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const login = await send(
    agent,
    'POST',
    '/auth/login',
    { 'content-type': 'application/json' },
    JSON.stringify({ secret: rig.secret, graph: 'social' }),
  );
  expect(login.status).toBe(200);
  const cookie = String(login.headers['set-cookie']?.[0]).split(';')[0]!;
  const round = async () => {
    expect((await send(agent, 'GET', '/api/echo', { cookie })).status).toBe(200);
    expect((await send(agent, 'GET', '/auth/session', { cookie })).status).toBe(200);
    expect((await send(agent, 'GET', '/api/missing-session', {})).status).toBe(401);
  };
  await round();
  const before = { redis: listeners(client!), process: listeners(process), socket: listeners(sockets[0]!) };
  for (let i = 0; i < N; i++) await round();
  const after = { redis: listeners(client!), process: listeners(process), socket: listeners(sockets[0]!) };

  expect(sockets).toHaveLength(1);
  expect(after).toEqual(before);
  // And the requests did reach Redis: the session was read through that client.
  expect(rig.sim.seen().filter((r) => r.path === '/echo').length).toBe(N + 1);
  agent.destroy();
});
