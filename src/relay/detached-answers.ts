/**
 * RESTPP's answers about detached queries for ids it does not know, as TigerGraph documents them (server docs,
 * "Built-in endpoints": Check query status / results (Detached Mode), Abort a query). The relay answers a
 * caller's ids that are not theirs with exactly these, and the simulator answers unknown ids with them too, so
 * an id of someone else reads as one that never existed. The documented samples carry `edition` in `version`.
 */
export const DOCUMENTED_VERSION = { edition: 'enterprise', api: 'v2', schema: 0 } as const;

type Version = Readonly<Record<string, unknown>>;

/** `GET /query_status` for ids it does not know: no results, the ids under `unknown_requestid`. */
export function unknownStatusAnswer(ids: readonly string[], version: Version = DOCUMENTED_VERSION): object {
  return { version, error: false, message: '', results: [], unknown_requestid: [...ids] };
}

/**
 * `GET /query_result` for an id whose result it cannot give (unknown, or still running): the documented error
 * text; the HTTP status (200, as RESTPP's other query-level errors) is inferred.
 */
export function noResultAnswer(id: string, version: Version = DOCUMENTED_VERSION): object {
  return { version, error: true, message: `Unable to retrieve result for query ${id}` };
}

/** `/abortquery` that aborted nothing. */
export function nothingAbortedAnswer(version: Version = DOCUMENTED_VERSION): object {
  return { version, error: false, message: '', results: [{ aborted_queries: [] }], code: 'REST-0000' };
}
