import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Narrow enough that an id from a client can go into logs and upstream headers without escaping. */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives each request an id: the caller's `X-Request-Id` when it is safe (so a trace spans the
 * frontend, this service and TigerGraph), else a fresh UUID. Stored on `res.locals.requestId`.
 */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const id = chooseRequestId(req.headers['x-request-id']);
    res.locals.requestId = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    next();
  };
}

/** The caller's id when it is one safe value, else a fresh UUID. */
export function chooseRequestId(given: string | string[] | undefined): string {
  return typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID();
}

/** The id the middleware assigned, if it ran. */
export function requestIdOf(res: Response): string | undefined {
  const id: unknown = res.locals.requestId;
  return typeof id === 'string' ? id : undefined;
}
