import type { IncomingMessage } from 'node:http';
import type { ForwardedFor } from '../../relay/header-policy.js';
import type { TraceSpan } from '../../observability/tracing.js';
import type { RequestSession } from '../session/request-session.js';

export const API_MOUNT = '/api';

/** Which of the two handlers serves a path: the /api relay lane or the Express app. */
export type Lane = 'api' | 'app';

/**
 * The one routing decision: the front door dispatches on it and the CSRF guard guards every /api method
 * on it, so no spelling can reach the relay without the guard (case-sensitive, as the relay's path guard
 * reads paths).
 */
export function laneOf(path: string): Lane {
  if (!path.startsWith(API_MOUNT)) return 'app';
  return path.length === API_MOUNT.length || path.charCodeAt(API_MOUNT.length) === 0x2f /* / */ ? 'api' : 'app';
}

/** What the steps work out about a request, once, for the steps after them and the handlers. */
export interface RequestContext {
  /** Ours, or a trusted proxy's (request-id.ts). */
  readonly requestId: string;
  /** The X-Request-Id a client sent that did not become the id: bounded and escaped, for the access line. */
  readonly clientRequestId: string | undefined;
  /** performance.now() at arrival (the relay's deadline counts from here). */
  readonly arrivedAt: number;
  readonly url: string;
  /** The URL path without its query. */
  readonly path: string;
  readonly lane: Lane;
  /** Client address, scheme and host as the trust-proxy setting lets us see them. */
  readonly forwarded: ForwardedFor;
  /** The route pattern for the access line (no ids); handlers that know theirs set it. */
  route: string | undefined;
  /** The session of the request's cookie, read at most once; set by the session step. */
  session: RequestSession;
  /** The code of the error this request was answered with (error-handler.ts sets it; the access line logs it). */
  errorCode: string | undefined;
  /** The request's server span when tracing is on; the access line ends it. */
  readonly span: TraceSpan | undefined;
}

const CONTEXT = Symbol('tgbff.context');

type WithContext = IncomingMessage & { [CONTEXT]?: RequestContext };

export function attachContext(req: IncomingMessage, ctx: RequestContext): void {
  (req as WithContext)[CONTEXT] = ctx;
}

/** The context the pipeline attached; undefined for a request that did not come through it. */
export function contextOf(req: IncomingMessage): RequestContext | undefined {
  return (req as WithContext)[CONTEXT];
}

/** The context of a request the pipeline ran for; handlers behind the front door always have one. */
export function requestContext(req: IncomingMessage): RequestContext {
  const ctx = contextOf(req);
  if (ctx === undefined) throw new Error('request did not come through the pipeline');
  return ctx;
}
