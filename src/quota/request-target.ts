import { parseRelayPath } from '../relay/path-guard.js';

/** The graph and installed query a relayed request addresses, as TigerGraph will read them (decoded). */
export interface QuotaTarget {
  graph?: string;
  query?: string;
}

// RESTPP sections whose second segment is a graph name (docs: built-in endpoints).
const GRAPH_SECTIONS = new Set([
  'query',
  'graph',
  'builtins',
  'endpoints',
  'echo',
  'allpaths',
  'shortestpath',
  'deleted_vertex_check',
  'statistics',
  'rebuildnow',
]);

/**
 * From the request target as received (`/api/query/social/q?x=1`): through the relay's own path parser,
 * so an escaped spelling (`/api/query/soci%61l/q`) matches the rule for `social` exactly as TigerGraph
 * reads it, and a malformed path is refused here as the relay would refuse it.
 */
export function quotaTarget(url: string, mount: string): QuotaTarget {
  const segments = parseRelayPath(url, mount).path.split('/');
  const section = segments[1];
  if (section === undefined || !GRAPH_SECTIONS.has(section) || !segments[2]) return {};
  if (section === 'query' && segments[3]) return { graph: segments[2], query: segments[3] };
  return { graph: segments[2] };
}
