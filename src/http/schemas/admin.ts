import { invalidRequest, parseInput } from './parse.js';
import { aliasName, exactly, graphName, optionalName } from './fields.js';

const graphOnly = exactly({ graph: optionalName(graphName) });
const createSecret = exactly({ graph: optionalName(graphName), alias: optionalName(aliasName) });
const aliasPath = exactly({ alias: aliasName });

const GRAPH_REQUIRED = 'graph: is required (secrets belong to a graph on this TigerGraph version)';

/** 3.x secrets belong to a graph, so every call there must name one. */
function graphOf(graph: string | undefined, required: boolean): string | null {
  if (graph === undefined && required) throw invalidRequest(GRAPH_REQUIRED);
  return graph ?? null;
}

/** `?graph=G`, the only query parameter the admin routes read; any other is refused. */
export function parseGraphQuery(query: unknown, graphRequired: boolean): string | null {
  return graphOf(parseInput(graphOnly, query, 'query').graph, graphRequired);
}

/** `POST /admin/secrets` `{"graph"?, "alias"?}`. */
export function parseCreateSecret(
  body: unknown,
  graphRequired: boolean,
): { graph: string | null; alias: string | undefined } {
  const { graph, alias } = parseInput(createSecret, body, 'body');
  return { graph: graphOf(graph, graphRequired), alias };
}

/** `DELETE /admin/secrets/:alias`. */
export const parseAliasPath = (params: unknown): string => parseInput(aliasPath, params, 'path').alias;
