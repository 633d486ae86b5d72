import type { IncomingMessage, ServerResponse } from 'node:http';

/** How long the rest of a refused body is read and dropped after the answer went out. */
export const LINGER_MS = 2000;

/**
 * After an early answer (413, or a deadline during a slow upload), the client may still be sending.
 * Closing at once would reset the connection while its bytes are in flight, and a reset can destroy
 * the answer before the client reads it; reading on forever would let it send for REQUEST_TIMEOUT_MS.
 * So, as nginx's lingering close does: Node drops the rest of the body, and the socket is closed
 * LINGER_MS after the answer unless the body ended first (the connection then stays usable).
 */
export function lingerThenClose(req: IncomingMessage, res: ServerResponse, ms = LINGER_MS): void {
  res.once('finish', () => {
    if (req.complete) return;
    const socket = req.socket;
    const timer = setTimeout(() => socket.destroy(), ms);
    // The socket outlives the request when the body ends in time (keep-alive): a listener left on it
    // would pile up with every refused body on that connection.
    const done = (): void => {
      clearTimeout(timer);
      req.off('end', done);
      socket.off('close', done);
    };
    req.once('end', done);
    socket.once('close', done);
    // The body reader paused the request at the cap, so Node will not drop the rest by itself: without
    // this the body never ends, and every refused body leaves its timer's listener on the connection.
    req.resume();
  });
}
