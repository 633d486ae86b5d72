import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * `server.close()` closes only the keep-alive connections idle at that moment. One busy at the signal
 * (a proxy's pooled connection, a browser's) stays open after its response, can carry new requests,
 * and holds the drain until the shutdown deadline. So while stopping, every response says
 * `Connection: close`, and a connection is closed as soon as its last response is done.
 */
export function closeConnectionsWhenDone(server: Server, stopping: () => boolean): void {
  const inFlight = new WeakMap<Socket, number>();
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    if (stopping()) res.setHeader('Connection', 'close');
    // 'close' comes after the response is flushed (or the connection died), and also for aborted responses.
    res.once('close', () => {
      const left = (inFlight.get(socket) ?? 1) - 1;
      inFlight.set(socket, left);
      // A request pipelined behind this one is still counted, so its answer is never cut off.
      if (left === 0 && stopping()) socket.destroy();
    });
  });
}
