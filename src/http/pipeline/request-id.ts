import { randomUUID } from 'node:crypto';
import type { Step } from './step.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Narrow enough that an id from a client can go into logs and upstream headers without escaping. */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The caller's `X-Request-Id` when it is one safe value (so a trace spans the frontend, this service and
 * TigerGraph), else a fresh UUID.
 */
export function chooseRequestId(given: string | string[] | undefined): string {
  return typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID();
}

/** Echoes the request's id (chosen when its context was made) so a client can quote it. */
export const echoRequestId: Step = (_req, res, ctx) => {
  res.setHeader(REQUEST_ID_HEADER, ctx.requestId);
};
