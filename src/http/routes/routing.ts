import express, { type Express, type Router } from 'express';

/**
 * One spelling per route: paths match case-sensitively and a trailing slash is another path. Express's
 * default (case-insensitive, trailing slash ignored) let `/AUTH/LOGOUT` reach a route the CSRF guard did
 * not recognise; now every odd spelling is either the guarded route itself or nothing (404).
 */
export const ROUTING = { caseSensitive: true, strict: true } as const;

/** A Router with the service's routing rule; every router the app mounts is made here. */
export function strictRouter(): Router {
  return express.Router(ROUTING);
}

/** The app-level half of the rule: set before the first route, since the app's router is built then. */
export function applyRouting(app: Express): void {
  app.set('case sensitive routing', ROUTING.caseSensitive);
  app.set('strict routing', ROUTING.strict);
}
