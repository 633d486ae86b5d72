import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { contextOf } from '../pipeline/context.js';
import { notAuthenticated, type SessionContext } from './session-gate.js';

/** The logged-in session of a request, as `requireSession` left it for the handlers after it. */
export function sessionContext(res: Response): SessionContext {
  const ctx = res.locals.session as SessionContext | undefined;
  if (!ctx) throw notAuthenticated();
  return ctx;
}

/** The one gate in front of an Express route (e.g. GET /auth/session); the lane asks the same gate. */
export function requireSession(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const ctx = contextOf(req);
    if (!ctx) return next(notAuthenticated());
    ctx.session.live().then((live) => {
      res.locals.session = live;
      next();
    }, next);
  };
}
