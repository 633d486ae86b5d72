import { restppError } from './restpp-errors.js';
import type { Sim, SimRequest } from './sim-context.js';

/** RESTPP masks tokens in its messages: first 4 + "****" + last 3 (last 4 for JWTs, per the 4.1 sample). */
export function maskToken(token: string): string {
  if (token === '') return '';
  if (token.length < 12) return '****';
  return `${token.slice(0, 4)}****${token.slice(token.includes('.') ? -4 : -3)}`;
}

const denied = (token: string, why: string) => `Access Denied because the input token = '${maskToken(token)}' ${why}`;

/**
 * Bearer check for data endpoints. Sends the REST-10016/10019 answer itself and returns false when the
 * request may not go on. "empty or too short" is attested; the other reasons are inferred.
 */
export function authorizeData(sim: Sim, r: SimRequest, graph?: string): boolean {
  if (!sim.authEnabled) return true;
  const header = r.req.headers.authorization;
  const match = header === undefined ? null : /^Bearer\s*(.*)$/i.exec(header);
  const token = match ? match[1]!.trim() : '';
  const status = sim.authFailureStatus;
  if (token.length < 32) {
    r.seen.auth = token === '' ? 'missing' : 'invalid';
    restppError(sim, r.res, status, 'REST-10016', denied(token, 'is empty or too short'));
    return false;
  }
  const found = sim.state.lookupToken(token);
  if (found.state === 'unknown') {
    r.seen.auth = 'invalid';
    restppError(sim, r.res, status, 'REST-10016', denied(token, 'is invalid.'));
    return false;
  }
  if (found.state === 'expired') {
    r.seen.auth = 'expired';
    restppError(sim, r.res, status, 'REST-10019', denied(token, 'is expired.'));
    return false;
  }
  const user = sim.state.users.get(found.record.user);
  // A graph-bound token works on its graph only; any token needs its user's privilege on the graph.
  const inScope = (g: string) => (!found.record.graph || found.record.graph === g) && !!user && sim.state.canUseGraph(user, g);
  if (!user || (graph !== undefined && sim.state.graphs.has(graph) && !inScope(graph))) {
    r.seen.auth = 'invalid';
    restppError(sim, r.res, status, 'REST-10016', denied(token, `has no access to graph '${graph ?? ''}'.`));
    return false;
  }
  r.seen.auth = 'ok';
  return true;
}
