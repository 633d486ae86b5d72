import type { Request, Response } from 'express';
import type { McpEndpoint } from '../../mcp/mcp-endpoint.js';
import { MCP_PATH } from '../../mcp/paths.js';
import { requestContext } from '../pipeline/context.js';
import { strictRoutes } from '../route-helpers/routing.js';

/**
 * MCP_RESOURCE: `/mcp` (POST, DELETE; GET answers 405: nothing is pushed) and its protected-resource metadata
 * (RFC 9728). The endpoint (src/mcp/) decides; this only mounts it. No cookie is read here: a bearer only.
 */
export function mcpRoutes(
  endpoint: McpEndpoint,
  credentialConcurrency: { enter(key: string): void; leave(key: string): void },
) {
  const routes = strictRoutes();
  const serve = endpoint.withLimits(credentialConcurrency);
  for (const path of endpoint.metadataPaths)
    routes.get(path, (_req: Request, res: Response) => {
      res.set('Cache-Control', 'public, max-age=300').json(endpoint.metadata());
    });
  const handler = async (req: Request, res: Response) => {
    const ctx = requestContext(req);
    await serve(req, res, { requestId: ctx.requestId, forwarded: ctx.forwarded });
  };
  routes.post(MCP_PATH, handler);
  routes.get(MCP_PATH, handler);
  routes.delete(MCP_PATH, handler);
  return routes.router;
}
