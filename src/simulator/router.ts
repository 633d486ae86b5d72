import type { ServerResponse } from 'node:http';
import { admitAdmin, handleAdmin, type AdminActions } from './admin-surface.js';
import { handleRestpp } from './data-endpoints.js';
import { handleGsql } from './gsql-endpoint.js';
import { applyDataFaults, holdWhileAsked } from './faults.js';
import { sendQueryTimeout, timeoutParamMs } from './query-limits.js';
import { delay, readBody, type RawHandler } from './http-server.js';
import type { Sim, SimRequest } from './sim-context.js';
import type { SeenRequest } from './types.js';

const SEEN_BODY_BYTES = 4096;
// Shared by every request without a query string; handlers only read it.
const NO_PARAMS = new URLSearchParams();

/**
 * One port's request pipeline: split the URL, record, read the body, add latency, dispatch. The gsql
 * port serves RESTPP under /restpp (nginx strips the prefix on a real server); the restpp port also
 * carries the simulator's own /__sim/ surface.
 */
export function createDispatcher(
  sim: Sim,
  port: 'restpp' | 'gsql',
  now: () => number,
  actions: AdminActions,
): RawHandler {
  return async (req, res) => {
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    let path = mark < 0 ? url : url.slice(0, mark);
    const rawQuery = mark < 0 ? '' : url.slice(mark + 1);
    const method = req.method ?? 'GET';
    const body = await readBody(req);

    if (port === 'restpp' && path.startsWith('/__sim/')) {
      const r = request(req, res, method, path, rawQuery, body, undefined);
      if (admitAdmin(sim.adminAccess, r)) handleAdmin(sim, r, actions);
      return;
    }
    let restpp = port === 'restpp';
    if (!restpp && (path === '/restpp' || path.startsWith('/restpp/'))) {
      restpp = true;
      path = path.slice('/restpp'.length) || '/';
    }
    const seen: SeenRequest = { port, method, path, query: rawQuery, headers: req.headers, status: 0, at: now() };
    if (body.length > 0) seen.bodyText = body.subarray(0, SEEN_BODY_BYTES).toString('utf8');
    sim.recorder.record(seen);
    if (restpp && path !== '/requesttoken' && !(await holdWhileAsked(sim, res, seen))) return;

    const latency = sim.faults.latencyMs ?? sim.latencyMs;
    const query = rawQuery === '' ? NO_PARAMS : new URLSearchParams(rawQuery);
    // The added latency is the request's running time: a built-in's `timeout` parameter stops it there.
    const limit = restpp ? timeoutParamMs(path, query) : undefined;
    if (latency > 0) await delay(limit === undefined ? latency : Math.min(latency, limit));
    const r = request(req, res, method, path, rawQuery, body, seen, query);
    if (limit !== undefined && latency > limit) {
      sendQueryTimeout(sim, r, { ms: limit, fromHeader: false, fromParam: true });
      seen.status = res.statusCode;
      return;
    }
    if (restpp && applyDataFaults(sim, res, path)) {
      seen.status = res.statusCode;
      return;
    }
    await (restpp ? handleRestpp(sim, r) : handleGsql(sim, r));
    seen.status = res.statusCode;
    sim.log?.(`${port} ${method} ${path} ${res.statusCode}${seen.auth ? ` auth=${seen.auth}` : ''}`);
  };
}

function request(
  req: SimRequest['req'],
  res: ServerResponse,
  method: string,
  path: string,
  rawQuery: string,
  body: Buffer,
  seen: SeenRequest | undefined,
  query: URLSearchParams = rawQuery === '' ? NO_PARAMS : new URLSearchParams(rawQuery),
): SimRequest {
  return {
    req,
    res,
    method,
    path,
    rawQuery,
    query,
    body,
    bodyText: body.length > 0 ? body.toString('utf8') : '',
    // Admin calls are not recorded; they get a throwaway entry.
    seen: seen ?? { port: 'restpp', method, path, query: rawQuery, headers: {}, status: 0, at: 0 },
  };
}
