import { authorizeData } from './data-auth.js';
import { DEMO_QUERIES, runDemoQuery, sendQueryResult, sleepQuery, streamQuery } from './demo-queries.js';
import { asksDetached, handleDetachedEndpoint, sendDetachedStart } from './detached-queries.js';
import { delay, sendJson } from './http-server.js';
import { parseLenientObject } from './lenient-json.js';
import { endpointNotFound, restppError } from './restpp-errors.js';
import { endpointKinds, endpointsListing, versionMessage } from './restpp-info.js';
import type { Sim, SimRequest } from './sim-context.js';
import { handleRequestToken } from './token-endpoint.js';
import { builtin, upsert } from './write-endpoints.js';

const ECHO = JSON.stringify({ error: false, message: 'Hello GSQL' });

/** RESTPP: the same handlers answer at :restpp/X and at :gsql/restpp/X. */
export async function handleRestpp(sim: Sim, r: SimRequest): Promise<void> {
  const { method, path } = r;
  if (path === '/requesttoken') return handleRequestToken(sim, r);
  const parts = path.split('/');
  const section = parts[1];
  const graph = parts[2] === undefined ? undefined : safeDecode(parts[2]);
  const reads = method === 'GET' || method === 'POST';

  if (section === 'echo' && parts.length <= 3 && reads) {
    if (!authorizeData(sim, r, graph)) return;
    const sleep = Number(r.query.get('sleep') ?? 0);
    if (sleep > 0) await delay(Math.min(sleep, 300) * 1000);
    return sendJson(r.res, 200, ECHO);
  }
  if (section === 'version' && parts.length === 2 && method === 'GET') {
    if (!authorizeData(sim, r)) return;
    return sendJson(r.res, 200, { error: 'false', message: versionMessage(sim.version.text), results: [] });
  }
  if (section === 'endpoints' && parts.length <= 3 && method === 'GET') {
    if (!authorizeData(sim, r, graph) || (graph && !graphExists(sim, r, graph))) return;
    return sendJson(r.res, 200, endpointsListing(graph ? [graph] : [...sim.graphs.keys()], endpointKinds(r.query)));
  }
  if (section === 'graph' && graph && parts.length === 3 && method === 'POST') {
    if (!authorizeData(sim, r, graph) || !graphExists(sim, r, graph)) return;
    return upsert(sim, r, sim.graphs.get(graph)!);
  }
  if (
    section === 'graph' &&
    graph &&
    parts[3] === 'vertices' &&
    (parts.length === 5 || parts.length === 6) &&
    method === 'GET'
  ) {
    if (!authorizeData(sim, r, graph) || !graphExists(sim, r, graph)) return;
    return vertices(sim, r, graph, safeDecode(parts[4]!), parts[5] === undefined ? undefined : safeDecode(parts[5]));
  }
  if (
    section === 'query' &&
    graph &&
    parts.length === 4 &&
    reads &&
    (DEMO_QUERIES as readonly string[]).includes(parts[3]!)
  ) {
    if (!authorizeData(sim, r, graph) || !graphExists(sim, r, graph)) return;
    return query(sim, r, graph, parts[3]!);
  }
  if (section === 'builtins' && graph && parts.length === 3 && method === 'POST') {
    if (!authorizeData(sim, r, graph) || !graphExists(sim, r, graph)) return;
    return builtin(sim, r, sim.graphs.get(graph)!);
  }
  if (DETACHED_SECTIONS.has(section ?? '') && method === 'GET') {
    const scope = section === 'query_status' ? (r.query.get('graph_name') ?? undefined) : graph;
    if (!authorizeData(sim, r, scope)) return;
    return handleDetachedEndpoint(sim, r, section!, graph);
  }
  return endpointNotFound(sim, r.res, path);
}

const DETACHED_SECTIONS = new Set([
  'query_status',
  'query_result',
  'abortquery',
  'showprocesslist',
  'showprocesslistall',
]);

function graphExists(sim: Sim, r: SimRequest, graph: string): boolean {
  if (sim.graphs.has(graph)) return true;
  restppError(sim, r.res, 400, 'REST-1004', `Graph '${graph}' does not exist.`); // text and code inferred
  return false;
}

function vertices(sim: Sim, r: SimRequest, graphName: string, type: string, id: string | undefined): void {
  const graph = sim.graphs.get(graphName)!;
  if (!graph.vertexTypes.includes(type)) {
    return restppError(sim, r.res, 400, '601', `The input vertex type '${type}' is not a valid vertex type.`); // inferred
  }
  if (id !== undefined) {
    const vertex = graph.vertex(type, id);
    if (!vertex) {
      return restppError(
        sim,
        r.res,
        400,
        '601',
        `The input vertex id '${id}' is not a valid vertex id for vertex type = ${type}.`,
      );
    }
    return sendJson(r.res, 200, { version: sim.envelopeVersion, error: false, message: '', results: [vertex] });
  }
  const limit = r.query.has('limit') ? Number(r.query.get('limit')) : Infinity;
  if (r.query.get('count_only') === 'true') {
    const results = [{ v_type: type, count: graph.vertexCount() }];
    return sendJson(r.res, 200, { version: sim.envelopeVersion, error: false, message: '', results });
  }
  const results = graph.vertices(type, Number.isFinite(limit) && limit >= 0 ? limit : Infinity);
  sendJson(r.res, 200, { version: sim.envelopeVersion, error: false, message: '', results });
}

async function query(sim: Sim, r: SimRequest, graphName: string, name: string): Promise<void> {
  const params: Record<string, unknown> = Object.fromEntries(r.query);
  if (r.method === 'POST' && r.bodyText.trim() !== '') {
    const body = parseLenientObject(r.bodyText);
    if (!body) return restppError(sim, r.res, 400, 'REST-30000', 'The query parameters are not a valid JSON object.'); // inferred
    Object.assign(params, body);
  }
  // `stream` writes as it goes and honours neither GSQL-TIMEOUT nor RESPONSE-LIMIT: a test tool for relays' own caps.
  if (asksDetached(r) && name !== 'stream') {
    if (name === 'sleep') {
      const ms = Math.min(Math.max(Math.floor(Number(params['ms'] ?? 0)) || 0, 0), 300_000);
      return sendDetachedStart(sim, r, graphName, ms, [{ slept: ms }]);
    }
    const outcome = runDemoQuery(sim.graphs.get(graphName)!, name, params)!;
    if ('code' in outcome) return sendQueryResult(sim, r, outcome);
    return sendDetachedStart(sim, r, graphName, 0, outcome.results);
  }
  if (name === 'stream') return streamQuery(sim, r, params);
  if (name === 'sleep') return sleepQuery(sim, r, params);
  sendQueryResult(sim, r, runDemoQuery(sim.graphs.get(graphName)!, name, params)!);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
