import express, { type Express, type RequestHandler, type Router } from 'express';
import { contextOf } from '../pipeline/context.js';

/**
 * One spelling per route: paths match case-sensitively and a trailing slash is another path. Express's
 * default (case-insensitive, trailing slash ignored) let `/AUTH/LOGOUT` reach a route the CSRF guard did
 * not recognise; now every odd spelling is either the guarded route itself or nothing (404).
 */
export const ROUTING = { caseSensitive: true, strict: true } as const;

type Method = 'get' | 'post' | 'delete';

/** A Router with the service's routing rule whose routes name themselves in the access line. */
type Handlers = Array<RequestHandler | RequestHandler[]>;

export interface Routes extends Record<Method, (path: string, ...handlers: Handlers) => void> {
  router: Router;
}

/**
 * Every router the app mounts is made here. A route records its full pattern (`mount` + path, e.g.
 * `/auth/login`, never the ids a path carries) in the request context when it matches, which is all the
 * access line needs from Express's router.
 */
export function strictRoutes(mount = ''): Routes {
  const router = express.Router(ROUTING);
  const add =
    (method: Method) =>
    (path: string, ...handlers: Handlers) => {
      const pattern = `${mount}${path}`;
      const named: RequestHandler = (req, _res, next) => {
        const ctx = contextOf(req);
        if (ctx) ctx.route = pattern;
        next();
      };
      router[method](path, named, ...handlers.flat());
    };
  return { router, get: add('get'), post: add('post'), delete: add('delete') };
}

/** The app-level half of the rule: set before the first route, since the app's router is built then. */
export function applyRouting(app: Express): void {
  app.set('case sensitive routing', ROUTING.caseSensitive);
  app.set('strict routing', ROUTING.strict);
}
