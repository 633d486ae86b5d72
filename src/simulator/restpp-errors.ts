import type { ServerResponse } from 'node:http';
import { sendJson } from './http-server.js';
import type { Sim } from './sim-context.js';

/** RESTPP error envelope; 4.x puts its `version` object first. */
export function restppError(sim: Sim, res: ServerResponse, status: number, code: string, message: string): void {
  const body = sim.version.v4
    ? { version: sim.envelopeVersion, error: true, message, code }
    : { error: true, message, code };
  sendJson(res, status, body);
}

/** The 404 RESTPP gives for unknown URLs, and for /requesttoken when auth is disabled. */
export function endpointNotFound(sim: Sim, res: ServerResponse, path: string): void {
  restppError(
    sim,
    res,
    404,
    'REST-1000',
    `Endpoint is not found from url = ${path}, please use GET /endpoints to list all valid endpoints.`,
  );
}
