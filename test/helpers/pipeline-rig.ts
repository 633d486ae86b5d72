import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { RequestContext } from '../../src/http/pipeline/context.js';
import { createPipeline, servePipeline, type PipelineDeps } from '../../src/http/pipeline/pipeline.js';
import { sessionLookup } from '../../src/http/session/session-lookup.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { silentLogger } from '../../src/observability/logger.js';
import { MemorySessionStore } from '../../src/store/memory/session-store.js';

export type PipelineRigOptions = Partial<Omit<PipelineDeps, 'sessions' | 'gate'>>;

/**
 * The service's real pipeline (src/http/pipeline/pipeline.ts) in front of a test handler, as the front door
 * puts it in front of the app: for unit tests of one step through the whole list. No sessions.
 */
export function throughPipeline(
  handler: (req: IncomingMessage, res: ServerResponse, ctx: RequestContext) => void,
  options: PipelineRigOptions = {},
): ((req: IncomingMessage, res: ServerResponse) => void) & { listen(port: number, host: string): Server } {
  const pipeline = createPipeline({
    logger: silentLogger(),
    metrics: createMetrics({ defaultMetrics: false }),
    allowedOrigins: [],
    csrfHeader: 'x-requested-with',
    trustProxy: false,
    cookieName: 'tgbff',
    cookieSecure: false,
    sessions: sessionLookup({ store: new MemorySessionStore(), cookieName: 'tgbff', secrets: ['pipeline-rig'] }),
    gate: () => Promise.reject(new Error('the pipeline rig has no sessions')),
    ...options,
  });
  const listener = servePipeline(pipeline, handler);
  return Object.assign(listener, { listen: (port: number, host: string) => createServer(listener).listen(port, host) });
}
