import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from './context.js';

/**
 * One step of the request path: returns true when it answered the request (nothing after it runs), throws
 * an AppError to refuse it, or returns nothing to let it go on.
 */
export type Step = (req: IncomingMessage, res: ServerResponse, ctx: RequestContext) => boolean | void;
