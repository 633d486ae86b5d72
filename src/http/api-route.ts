import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Relay, RelayAuth } from '../relay/relay.js';
import type { TokenBroker } from '../tokens/token-broker.js';
import { sessionContext } from './require-session.js';

/** `/api/*`: hands the request to the relay with the session's token source attached. */
export function apiRoute(deps: { relay: Relay; broker: TokenBroker }): RequestHandler {
  const { relay, broker } = deps;
  return (req: Request, res: Response, next: NextFunction) => {
    const ctx = sessionContext(res);
    const auth: RelayAuth = {
      token: () => broker.token(ctx.sid, ctx.secret, ctx.remainingMs).then((s) => s.token),
      rejected: (token) => broker.replaceRejected(ctx.sid, ctx.secret, token, ctx.remainingMs).then((s) => s.token),
    };
    relay.handle(req, res, auth, res.locals.requestId as string).catch(next);
  };
}
