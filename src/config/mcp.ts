import { isName } from '@tigergraph-bff/client';
import { httpUrlWithoutCredentials, Invalid } from './fields.js';

/**
 * The MCP endpoint's settings (docs/mcp.md): on when MCP_RESOURCE names the resource identifier agents ask
 * the identity provider for (RFC 8707/9728: the URL of this service's /mcp). Needs single sign-on.
 */
export interface McpConfig {
  /** The resource identifier, as written: the `aud` every bearer must carry, and the metadata's `resource`. */
  resource: string;
  /** Graphs offered as tools without a credential map, or for a map rule of `*`; TigerGraph decides the rest. */
  graphs: readonly string[];
  sessionsPerPrincipal: number;
  idleTimeoutSec: number;
  maxBodyBytes: number;
}

/** An absolute http(s) URL without credentials or fragment (RFC 9728 §1.2 resource identifier). */
export function mcpResource(raw: string): string {
  const url = httpUrlWithoutCredentials(
    raw,
    'must be the https URL agents reach this service at, e.g. https://bff.example.com/mcp',
  );
  if (url.hash !== '' || url.search !== '') throw new Invalid('must not contain a query or fragment');
  return raw;
}

export function graphName(raw: string): string {
  if (!isName(raw)) throw new Invalid('must list graph names');
  return raw;
}

interface McpValues {
  MCP_RESOURCE: string | undefined;
  MCP_GRAPHS: string[];
  MCP_SESSIONS_PER_PRINCIPAL: number;
  MCP_SESSION_IDLE_TIMEOUT: number;
  MCP_MAX_BODY_BYTES: number;
}

export function mcpFrom(v: McpValues): { mcp?: McpConfig } {
  if (v.MCP_RESOURCE === undefined) return {};
  return {
    mcp: {
      resource: v.MCP_RESOURCE,
      graphs: v.MCP_GRAPHS,
      sessionsPerPrincipal: v.MCP_SESSIONS_PER_PRINCIPAL,
      idleTimeoutSec: v.MCP_SESSION_IDLE_TIMEOUT,
      maxBodyBytes: v.MCP_MAX_BODY_BYTES,
    },
  };
}
