import type { DemoGraph } from './demo-graph.js';
import { sendJson } from './http-server.js';
import { parseLenientObject } from './lenient-json.js';
import { restppError } from './restpp-errors.js';
import type { Sim, SimRequest } from './sim-context.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const entries = (v: unknown): Array<[string, unknown]> => (isObj(v) ? Object.entries(v) : []);

/** Attributes arrive as {"name": {"value": "Zed"}}; plain values are accepted too. */
function attributes(raw: unknown): Obj {
  return Object.fromEntries(entries(raw).map(([k, v]) => [k, isObj(v) && 'value' in v ? v['value'] : v]));
}

/** `POST /graph/{g}`: upsert in RESTPP's nested payload format; counts what was accepted. */
export function upsert(sim: Sim, r: SimRequest, graph: DemoGraph): void {
  const body = parseLenientObject(r.bodyText);
  if (!body) return restppError(sim, r.res, 400, 'REST-30000', 'The upsert payload is not a valid JSON object.'); // inferred
  let acceptedVertices = 0;
  let acceptedEdges = 0;
  for (const [type, byId] of entries(body['vertices'])) {
    for (const [id, attrs] of entries(byId)) if (graph.upsertVertex(type, id, attributes(attrs))) acceptedVertices++;
  }
  for (const [fromType, byFrom] of entries(body['edges'])) {
    for (const [fromId, byEdgeType] of entries(byFrom)) {
      for (const [edgeType, byToType] of entries(byEdgeType)) {
        for (const [toType, byTo] of entries(byToType)) {
          for (const [toId, attrs] of entries(byTo)) {
            if (graph.upsertEdge(fromType, fromId, edgeType, toType, toId, attributes(attrs))) acceptedEdges++;
          }
        }
      }
    }
  }
  sendJson(r.res, 200, {
    version: sim.envelopeVersion,
    error: false,
    message: '',
    results: [{ accepted_vertices: acceptedVertices, accepted_edges: acceptedEdges }],
  });
}

/** `POST /builtins/{g}`: the stat functions. */
export function builtin(sim: Sim, r: SimRequest, graph: DemoGraph): void {
  const body = parseLenientObject(r.bodyText);
  const fn = body?.['function'];
  const type = typeof body?.['type'] === 'string' ? (body['type'] as string) : '*';
  let results: Obj[];
  if (fn === 'stat_vertex_number') {
    results = graph.vertexTypes
      .filter((t) => type === '*' || t === type)
      .map((t) => ({ v_type: t, count: graph.vertexCount() }));
  } else if (fn === 'stat_edge_number') {
    results = graph.edgeTypes
      .filter((t) => type === '*' || t === type)
      .map((t) => ({ e_type: t, count: graph.edgeCount() }));
  } else {
    return restppError(sim, r.res, 400, 'REST-30000', `Unknown builtin function '${String(fn)}'.`); // inferred
  }
  sendJson(r.res, 200, { version: sim.envelopeVersion, error: false, message: '', results });
}
