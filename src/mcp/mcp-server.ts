import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Audit } from '../observability/audit.js';
import type { ToolCaller, ToolRunner } from './tool-runner.js';

export interface McpServerDeps {
  runner: ToolRunner;
  audit?: Audit;
  version: string;
  /** The keyed hash the audit trail names a principal by. */
  principalHandle: (principal: string) => string;
}

/**
 * One JSON-RPC exchange of an MCP session, answered by the SDK's server over its Streamable HTTP transport in
 * its stateless form: the session (Mcp-Session-Id) is ours (mcp-sessions.ts, in Redis, so any instance serves
 * it), and nothing of it lives in the server object, which is built per request (cheap: two handlers) and
 * closed with the response. JSON answers, not SSE: tools answer once, and nothing is pushed.
 */
export async function answerMcp(
  deps: McpServerDeps,
  caller: ToolCaller,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
): Promise<void> {
  const server = new Server(
    { name: 'tigergraph-bff', version: deps.version },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        "Tools run TigerGraph's installed queries as the person who signed you in, with their access and limits.",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await deps.runner.catalog(caller)).map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: { readOnlyHint: false, openWorldHint: false },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const name = request.params.name;
    const args = request.params.arguments ?? {};
    const outcome = await deps.runner.call(caller, name, args);
    deps.audit?.emit({
      event: 'mcp.tool_called',
      tool: name.slice(0, 200),
      principal: deps.principalHandle(caller.principal),
      ...(caller.access.rule !== undefined && { rule: caller.access.rule }),
      result: outcome.ok ? 'ok' : 'refused',
      ...(!outcome.ok && { code: outcome.code.slice(0, 64) }),
    });
    if (outcome.ok) return { content: [{ type: 'text', text: outcome.text }] };
    return {
      isError: true,
      content: [{ type: 'text', text: JSON.stringify({ error: { code: outcome.code, message: outcome.message } }) }],
    };
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.once('close', () => {
    void transport.close().catch(() => undefined);
    void server.close().catch(() => undefined);
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
