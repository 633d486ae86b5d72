import type { JwtFailure } from './external-jwt.js';
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
  // The simulator's own (GSQL-issued) JWTs keep their answers; only foreign ones go to Security.JWT.* checks.
  if (found.state === 'unknown' && sim.externalJwt && token.includes('.') && !sim.jwt.verify(token)) {
    return authorizeExternal(sim, r, token, graph);
  }
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
  const inScope = (g: string) =>
    (!found.record.graph || found.record.graph === g) && !!user && sim.state.canUseGraph(user, g);
  if (!user || (graph !== undefined && sim.state.graphs.has(graph) && !inScope(graph))) {
    r.seen.auth = 'invalid';
    restppError(sim, r.res, status, 'REST-10016', denied(token, `has no access to graph '${graph ?? ''}'.`));
    return false;
  }
  r.seen.auth = 'ok';
  return true;
}

/**
 * Reasons per failure class of TigerGraph's JWT doc ("Potential Error Messages"). Attested wording:
 * "is not in correct format" (a malformed token) and the audience sentence (doc sample). The others
 * are modelled on those two [infer]. All answer REST-10016, also for an expired JWT (REST-10019 stays
 * the plaintext tokens' answer, as before).
 */
export function jwtFailureReason(
  f: JwtFailure,
  configured: { issuer?: string | undefined; audience?: string | undefined },
): string {
  switch (f.kind) {
    case 'format':
      return 'is not in correct format';
    case 'signature':
      return 'failed the signature verification';
    case 'expired':
      return 'is expired.';
    case 'not_yet_valid':
      return 'is not valid yet: it was issued in the future';
    case 'issuer':
      return `contains issuer ${f.given}, which doesn't match the configured one ${configured.issuer ?? ''}`;
    case 'audience':
      return `contains audience [${f.given.join(',')}], which doesn't include the configured one ${configured.audience ?? ''}`;
  }
}

/** An external JWT (3.10+ with `Security.JWT.*` set): signature and claims, then user and graph scope. */
function authorizeExternal(sim: Sim, r: SimRequest, token: string, graph: string | undefined): boolean {
  const status = sim.authFailureStatus;
  const refuse = (why: string, seen: 'invalid' | 'expired' = 'invalid'): false => {
    r.seen.auth = seen;
    restppError(sim, r.res, status, 'REST-10016', denied(token, why));
    return false;
  };
  if (sim.blockedJwts.has(token)) return refuse('is in the block list.'); // [infer]
  const result = sim.externalJwt!.verify(token, sim.state.nowSeconds());
  if (!result.ok) {
    const why = jwtFailureReason(result.failure, { issuer: sim.jwtIssuer, audience: sim.jwtAudience });
    return refuse(why, result.failure.kind === 'expired' ? 'expired' : 'invalid');
  }
  const { sub, graph: claimGraph } = result.claims;
  const user = sim.state.users.get(sub);
  if (!user) return refuse(`refers to the user '${sub}', which does not exist.`); // [infer]
  // A `graph` claim limits the token to that graph; the user must be allowed on it. Absent: global.
  if (claimGraph !== undefined && !sim.state.canUseGraph(user, claimGraph)) {
    return refuse(`is denied: user '${sub}' has no permission on graph '${claimGraph}'.`); // [infer]
  }
  if (graph !== undefined && sim.state.graphs.has(graph)) {
    if ((claimGraph !== undefined && claimGraph !== graph) || !sim.state.canUseGraph(user, graph)) {
      return refuse(`is denied: it has no permission on graph '${graph}'.`); // [infer]
    }
  }
  r.seen.auth = 'ok';
  return true;
}
