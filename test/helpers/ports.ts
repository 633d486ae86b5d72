import { createServer } from 'node:net';

/**
 * A loopback port nothing listens on right now: for a listener started next (a second port of a
 * redis-server, a child process's fixed port) or for one that must stay closed. Servers the test starts
 * itself listen on port 0 instead.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
