import type { EndpointListing, ParamSpec } from '@tigergraph-bff/codegen';

/**
 * Tools from TigerGraph's endpoint list (`GET /endpoints/<graph>?dynamic=true`, the catalog `tgbff codegen`
 * reads): one per installed query, named `<graph>__<query>`, described from the listing, with a JSON Schema of
 * its parameters in the types TigerGraph states (both spellings codegen reads: the GSQL declaration the
 * simulator lists, `SET<INT>`, `VERTEX<Person>`, and RESTPP's own, `INT64`, `is_id`, `max_count`). Names come
 * from the data server, so only GSQL identifiers are used; anything else is left out.
 */
export type { EndpointListing, ParamSpec };

export interface QueryTool {
  name: string;
  graph: string;
  /** The installed query's name; absent for the read-only built-in vertex lookup (`builtinTools`). */
  query?: string;
  method: 'GET' | 'POST';
  description: string;
  inputSchema: {
    type: 'object';
    properties: Record<string, JsonSchema>;
    required?: string[];
    additionalProperties: false;
  };
}

type JsonSchema = Record<string, unknown>;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** Tool names as clients accept them (MCP: 1–128 of [A-Za-z0-9_.-]); a graph and a query name fit. */
export const toolName = (graph: string, query: string): string => `${graph}__${query}`;

const INTEGER = /^(U?INT(8|16|32|64)?)$/;
const NUMBER = /^(FLOAT|DOUBLE|REAL)$/;

function scalarSchema(type: string): JsonSchema {
  if (INTEGER.test(type)) return { type: 'integer', description: type };
  if (NUMBER.test(type)) return { type: 'number', description: type };
  if (type === 'BOOL' || type === 'BOOLEAN') return { type: 'boolean', description: type };
  if (type === 'DATETIME') return { type: 'string', description: 'DATETIME, "YYYY-MM-DD HH:MM:SS"' };
  const vertex = /^VERTEX\s*<\s*(\w+)\s*>$/.exec(type);
  if (vertex) return { type: 'string', description: `the id of a ${vertex[1]!} vertex` };
  if (type === 'VERTEX')
    return {
      type: 'object',
      description: 'a vertex of any type: its id and type',
      properties: { id: { type: 'string' }, type: { type: 'string' } },
      required: ['id', 'type'],
      additionalProperties: false,
    };
  if (type === 'STRING' || type === 'STRING COMPRESS') return { type: 'string', description: type };
  return { description: type === '' ? 'untyped' : type };
}

/** One parameter's schema, and whether the query needs it. */
export function paramSchema(spec: ParamSpec | null | undefined): { schema: JsonSchema; required: boolean } {
  const raw = typeof spec?.type === 'string' ? spec.type.trim().slice(0, 100) : '';
  const upper = raw.toUpperCase();
  const required = Number(spec?.min_count) >= 1 && spec?.default === undefined;
  const collection = /^(SET|LIST|BAG)\s*<\s*(.+?)\s*>$/.exec(upper);
  if (collection) return { schema: { type: 'array', items: scalarSchema(collection[2]!), description: raw }, required };
  const isId = spec?.is_id === true || spec?.is_id === 'true';
  const idType = typeof spec?.id_type === 'string' && IDENTIFIER.test(spec.id_type) ? spec.id_type : undefined;
  const one = isId ? scalarSchema(idType ? `VERTEX<${idType}>` : 'VERTEX') : scalarSchema(upper);
  const many = Number(spec?.max_count) > 1;
  const schema = many ? { type: 'array', items: one } : one;
  if (spec?.default !== undefined && typeof spec.default !== 'object') schema.default = spec.default;
  return { schema, required };
}

export function toolsOf(graph: string, listing: EndpointListing): QueryTool[] {
  const prefix = `/query/${graph}/`;
  const byName = new Map<string, { methods: Set<string>; parameters: Map<string, ParamSpec> }>();
  for (const [key, entry] of Object.entries(listing)) {
    const [method = '', path = ''] = key.split(' ');
    if (!path.startsWith(prefix) || (method !== 'GET' && method !== 'POST')) continue;
    const name = path.slice(prefix.length);
    if (!IDENTIFIER.test(name)) continue;
    const seen = byName.get(name) ?? { methods: new Set<string>(), parameters: new Map<string, ParamSpec>() };
    seen.methods.add(method);
    for (const [param, spec] of Object.entries(entry?.parameters ?? {})) seen.parameters.set(param, spec);
    byName.set(name, seen);
  }
  const tools: QueryTool[] = [];
  for (const [query, { methods, parameters }] of [...byName].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const properties: Record<string, JsonSchema> = Object.create(null) as Record<string, JsonSchema>;
    const required: string[] = [];
    for (const [param, spec] of parameters) {
      // RESTPP lists the query's own name as a parameter `query`, and `<p>.type` beside an untyped vertex.
      if (param === 'query' && spec?.default === query) continue;
      if (param.endsWith('.type') && parameters.has(param.slice(0, -'.type'.length))) continue;
      if (!IDENTIFIER.test(param)) continue;
      const p = paramSchema(spec);
      properties[param] = p.schema;
      if (p.required) required.push(param);
    }
    tools.push({
      name: toolName(graph, query),
      graph,
      query,
      // POST carries the arguments as a JSON body, collections and vertices as they are.
      method: methods.has('POST') ? 'POST' : 'GET',
      description: `Runs the installed query ${query} of graph ${graph} as you, and answers its results (JSON).`,
      inputSchema: {
        type: 'object',
        properties: { ...properties },
        ...(required.length > 0 && { required }),
        additionalProperties: false,
      },
    });
  }
  return tools;
}

/**
 * The read-only built-in offered beside the queries, only where RELAY_ALLOW opens it (the caller checks):
 * `<graph>__get_vertex`, one vertex by type and id (`GET /graph/<graph>/vertices/<type>/<id>`).
 */
export function vertexLookupTool(graph: string): QueryTool {
  return {
    name: `${graph}__get_vertex`,
    graph,
    method: 'GET',
    description: `Reads one vertex of graph ${graph} by its type and id, as you (TigerGraph's built-in vertex endpoint).`,
    inputSchema: {
      type: 'object',
      properties: {
        type: { type: 'string', description: 'the vertex type' },
        id: { type: 'string', description: 'the vertex id' },
      },
      required: ['type', 'id'],
      additionalProperties: false,
    },
  };
}
