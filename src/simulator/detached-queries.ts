import { noResultAnswer, nothingAbortedAnswer } from '../relay/detached-answers.js';
import { sendJson } from './http-server.js';
import { DEFAULT_QUERY_TIMEOUT_MS } from './query-limits.js';
import type { Sim, SimRequest } from './sim-context.js';

/**
 * Installed queries run in Detached Mode (`GSQL-ASYNC: true`), as TigerGraph documents them (GSQL reference,
 * "Detached mode -async option"; server docs, "Built-in endpoints"): the call answers at once with a
 * `request_id`; `GET /query_status` says `running`, then `success` (or `timeout`, `aborted`); `GET
 * /query_result` gives the results once it finished (before that, or for an unknown id, the documented
 * "Unable to retrieve result" error); `/abortquery/{graph}` aborts by id or `all`; `/showprocesslist/{graph}`
 * and `/showprocesslistall` list the running ones. Like RESTPP, none of this asks who started a query; the
 * queries themselves are kept in detached-registry.ts.
 */

/** The answer of a detached start (GSQL reference, "Detached mode -async option"). */
export function sendDetachedStart(sim: Sim, r: SimRequest, graph: string, runMs: number, results: unknown[]): void {
  const header = r.req.headers['gsql-timeout'];
  const asked = typeof header === 'string' && /^[0-9]{1,15}$/.test(header.trim()) ? Number(header.trim()) : 0;
  const timeoutMs = asked > 0 ? asked : DEFAULT_QUERY_TIMEOUT_MS;
  const url = r.rawQuery === '' ? r.path : `${r.path}?${r.rawQuery}`;
  const id = sim.detached.start(graph, url, runMs, timeoutMs, results);
  sendJson(r.res, 200, {
    version: sim.envelopeVersion,
    error: false,
    message: 'The query is successfully submitted. Please check query status using the request id.',
    request_id: id,
  });
}

/** Whether `GSQL-ASYNC` asks for Detached Mode. */
export const asksDetached = (r: SimRequest): boolean => {
  const v = r.req.headers['gsql-async'];
  return typeof v === 'string' && v.trim().toLowerCase() === 'true';
};

/** `/query_status`, `/query_result`, `/abortquery/{graph}`, `/showprocesslist/{graph}`, `/showprocesslistall`. */
export function handleDetachedEndpoint(sim: Sim, r: SimRequest, section: string, graph: string | undefined): void {
  const ids = r.query.getAll('requestid');
  const envelope = { version: sim.envelopeVersion, error: false, message: '' };
  if (section === 'query_status') {
    const all = ids.length === 0 || ids.includes('all');
    if (all) {
      const results = sim.detached
        .running(r.query.get('graph_name') ?? undefined)
        .map((e) => sim.detached.status(e.requestid));
      return sendJson(r.res, 200, { ...envelope, results });
    }
    const results = ids.map((id) => sim.detached.status(id)).filter((s) => s !== undefined);
    const unknown = ids.filter((id) => sim.detached.status(id) === undefined);
    return sendJson(r.res, 200, { ...envelope, results, ...(unknown.length > 0 && { unknown_requestid: unknown }) });
  }
  if (section === 'query_result') {
    const id = ids[0] ?? '';
    const results = sim.detached.result(id);
    if (results === undefined) return sendJson(r.res, 200, noResultAnswer(id, sim.envelopeVersion));
    return sendJson(r.res, 200, { ...envelope, results });
  }
  if (section === 'abortquery') {
    const targets = ids.length === 0 || ids.includes('all') ? sim.detached.running(graph).map((e) => e.requestid) : ids;
    const aborted = targets.map((id) => sim.detached.abort(id)).filter((e) => e !== undefined);
    if (aborted.length === 0) return sendJson(r.res, 200, nothingAbortedAnswer(sim.envelopeVersion));
    return sendJson(r.res, 200, {
      ...envelope,
      results: [{ aborted_queries: aborted.map((e) => ({ requestid: e.requestid, url: e.url })) }],
      code: 'REST-0000',
    });
  }
  // showprocesslist/{graph}, showprocesslistall
  const results = sim.detached.running(section === 'showprocesslist' ? graph : undefined).map((e) => {
    const { requestid, startTime, expirationTime, url, elapsedTime } = sim.detached.status(e.requestid) as Record<
      string,
      unknown
    >;
    return { requestid, startTime, expirationTime, url, elapsedTime };
  });
  sendJson(r.res, 200, { ...envelope, results, code: 'REST-0000' });
}
