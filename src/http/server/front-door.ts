import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Express } from 'express';
import { servePipeline, type Pipeline } from '../pipeline/pipeline.js';
import type { ApiLane } from '../routes/api-lane.js';

/**
 * The service's request listener: the pipeline for every request, then `/api` to the lane (no Express on
 * the hot path) and everything else to the Express app, on the context's one routing decision. Callable
 * like an Express app, and with the same `listen`, so servers, tests and supertest take it as they took
 * the app.
 */
export interface FrontDoor extends RequestListener<typeof IncomingMessage, typeof ServerResponse> {
  listen(port?: number, host?: string): Server;
}

export function frontDoor(pipeline: Pipeline, lane: ApiLane, app: Express): FrontDoor {
  /* eslint-disable @typescript-eslint/no-unsafe-return -- Express types an app's call as returning any; servePipeline ignores it */
  const listener = servePipeline(pipeline, (req, res, ctx) =>
    ctx.lane === 'api' ? lane(req, res, ctx) : app(req, res),
  );
  /* eslint-enable @typescript-eslint/no-unsafe-return */
  return Object.assign(listener, {
    listen(port?: number, host?: string): Server {
      const server = createServer(listener);
      return host === undefined ? server.listen(port) : server.listen(port, host);
    },
  });
}
