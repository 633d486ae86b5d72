import { DEMO_QUERIES, DEMO_QUERY_PARAMS } from './demo-queries.js';

/** `/version` text in RESTPP's layout; pyTigerGraph skips 3 header lines and reads `_x.y.z_` on `product`. */
export function versionMessage(version: string): string {
  const build = `release_${version}_01-15-2024  4b2e9c1d7a0f3e6b5c8d9e0f1a2b3c4d5e6f7a8b  2024-01-15 10:00:00 -0800`;
  const components = ['product', 'cqrs', 'gle', 'gsql', 'gui', 'restpp', 'gpe', 'gse'];
  const lines = components.map((c) => `${c.padEnd(17)}${build}`);
  return `TigerGraph RESTPP:\n --- Version --- \nTigerGraph version: ${version}\n${lines.join('\n')}\n`;
}

/** A parameter as RESTPP lists it: its type, how many values it takes, and its default when it has one. */
interface ParamEntry {
  type: string;
  min_count?: number;
  max_count?: number;
  default?: string;
}

type Listing = Record<string, { parameters: Record<string, ParamEntry> }>;

const BUILTIN: Record<string, string[]> = {
  'GET /echo': ['sleep'],
  'POST /echo': ['sleep'],
  'GET /version': [],
  'GET /endpoints': ['builtin', 'dynamic', 'static'],
  'GET /graph/{graph_name}/vertices/{vertex_type}': ['limit', 'count_only', 'select', 'filter', 'sort'],
  'GET /graph/{graph_name}/vertices/{vertex_type}/{vertex_id}': ['select'],
  'POST /graph/{graph_name}': [],
  'POST /builtins/{graph_name}': ['function', 'type'],
  'POST /requesttoken': ['secret', 'lifetime', 'graph'],
  'PUT /requesttoken': ['secret', 'token', 'lifetime'],
  'DELETE /requesttoken': ['secret', 'token'],
};

export interface EndpointKinds {
  builtin: boolean;
  dynamic: boolean;
  static: boolean;
}

/** RESTPP's flags: `builtin=true`, `dynamic=true`, `static=true`; none of them means all (as pyTigerGraph reads it). */
export function endpointKinds(query: URLSearchParams): EndpointKinds {
  const kinds = {
    builtin: query.get('builtin') === 'true',
    dynamic: query.get('dynamic') === 'true',
    static: query.get('static') === 'true',
  };
  return kinds.builtin || kinds.dynamic || kinds.static ? kinds : { builtin: true, dynamic: true, static: true };
}

/**
 * `/endpoints[/{graph}]`: built-in endpoints keep the `{graph_name}` placeholder; installed queries are
 * listed per graph with the graph's name in the path, which is what pyTigerGraph's getInstalledQueries
 * filters on (`^GET /query/<graph>`). The POST entries for queries are inferred. No static endpoints.
 * A query's parameter says whether it is required as RESTPP does: `min_count` 1 without a default, else
 * `min_count` 0 and the `default` (the type stays the GSQL declaration, the simulator's own spelling).
 */
export function endpointsListing(graphs: readonly string[], kinds: EndpointKinds): Listing {
  const listing: Listing = {};
  if (kinds.builtin) {
    for (const [key, params] of Object.entries(BUILTIN))
      listing[key] = { parameters: typed(params.map((p) => [p, 'STRING'])) };
  }
  if (kinds.dynamic) {
    for (const graph of graphs) {
      for (const name of DEMO_QUERIES) {
        const parameters: Record<string, ParamEntry> = {};
        for (const [param, spec] of Object.entries(DEMO_QUERY_PARAMS[name]) as Array<[string, ParamEntry]>)
          parameters[param] =
            spec.default === undefined
              ? { type: spec.type, min_count: 1, max_count: 1 }
              : { type: spec.type, min_count: 0, max_count: 1, default: spec.default };
        for (const method of ['GET', 'POST']) listing[`${method} /query/${graph}/${name}`] = { parameters };
      }
    }
  }
  return listing;
}

function typed(params: ReadonlyArray<readonly [string, string]>): Record<string, ParamEntry> {
  return Object.fromEntries(params.map(([name, type]) => [name, { type }]));
}
