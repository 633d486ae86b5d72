import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Express } from 'express';
import type { ApiLane } from '../routes/api-lane.js';

/**
 * The service's request listener: `/api` goes to the lane (no Express on the hot path), everything else
 * to the Express app. Callable like an Express app, and with the same `listen`, so servers, tests and
 * supertest take it as they took the app.
 */
export interface FrontDoor extends RequestListener<typeof IncomingMessage, typeof ServerResponse> {
  listen(port?: number, host?: string): Server;
}

export function frontDoor(lane: ApiLane, app: Express): FrontDoor {
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    if (lane.matches(req.url ?? '')) lane.handle(req, res);
    else app(req, res);
  };
  return Object.assign(listener, {
    listen(port?: number, host?: string): Server {
      const server = createServer(listener);
      return host === undefined ? server.listen(port) : server.listen(port, host);
    },
  });
}
