import { applyTokenFaults } from './faults.js';
import { sendJson } from './http-server.js';
import { parseLenientObject, stringField } from './lenient-json.js';
import { endpointNotFound } from './restpp-errors.js';
import type { Sim, SimRequest } from './sim-context.js';
import type { SimToken } from './state.js';
import {
  CODE_BAD_REQUEST,
  isFailure,
  mint,
  ownedToken,
  parseLifetime,
  principalFromBasic,
  principalFromSecret,
  type Principal,
  type TokenFailure,
} from './token-ops.js';

const WARNING =
  '\nWarning: Tigergraph Support cannot restore access to secrets/tokens for security reasons. ' +
  'Please save your secret/token and keep it safe and accessible.';

// The first sentence is attested (TG Cloud 3.5.2); the link sentence after the newline is inferred.
const QUERY_STRING_REJECTED =
  'The request cannot be processed: expected a JSON payload, but a query string was given.\n' +
  'Please visit https://docs.tigergraph.com/tigergraph-server/current/api/built-in-endpoints#_authentication for more information.';

interface Fields {
  secret: string | undefined;
  token: string | undefined;
  graph: string | undefined;
  lifetime: unknown;
  /** ≤3.4 took username/password (Basic) on GET only; false refuses Basic for this request. */
  basicAllowed?: boolean;
}

/** `/requesttoken` in every era. Errors are HTTP 200 with `error:true`, as TigerGraph answers them. */
export async function handleRequestToken(sim: Sim, r: SimRequest): Promise<void> {
  // nginx only routes /requesttoken to the token server when RESTPP auth is on.
  if (!sim.authEnabled) return endpointNotFound(sim, r.res, '/requesttoken');
  if (await applyTokenFaults(sim, r.res)) return;
  const fields = sim.version.era === 'query' ? queryEraFields(r) : jsonEraFields(sim, r);
  if (fields === undefined) return;
  const body = operate(sim, r, fields);
  sendJson(r.res, 200, isFailure(body) ? { error: true, message: body.message, code: body.code } : body);
}

/**
 * ≤3.4, strict: only what 3.4 documented (docs/tigergraph-wire.md §1.1). GET with `secret`/`lifetime` (or
 * `graph` plus Basic user:password) in the query string; PUT and DELETE with `secret`, `token`,
 * `lifetime` in the query string; POST `?lifetime=N` with the raw secret as the whole body (3.2 docs).
 * Nothing else is read: a JSON body is not parsed, so POSTing `{"secret":…}` (3.5 style) or a
 * username/password POST with `{"graph":…}` offers that text as the secret and gets the bad-secret
 * answer (HTTP 200, error:true), and a JSON body on PUT/DELETE leaves the secret missing. [infer: the
 * wire doc has no 3.4 text for these; the bad-secret / missing-secret answers are the closest ones.]
 */
function queryEraFields(r: SimRequest): Fields {
  const q = (key: string) => r.query.get(key) ?? undefined;
  if (r.method === 'POST') {
    const raw = r.bodyText.trim();
    return {
      secret: raw === '' ? undefined : raw,
      token: undefined,
      graph: undefined,
      lifetime: q('lifetime'),
      basicAllowed: false,
    };
  }
  const get = r.method === 'GET';
  return {
    secret: q('secret'),
    token: get ? undefined : q('token'),
    graph: get ? q('graph') : undefined,
    lifetime: r.method === 'DELETE' ? undefined : q('lifetime'),
    basicAllowed: get,
  };
}

/** 3.5+: JSON body whatever the Content-Type; credentials in the query string → REST-1101. */
function jsonEraFields(sim: Sim, r: SimRequest): Fields | undefined {
  if (r.method === 'GET') {
    endpointNotFound(sim, r.res, '/requesttoken');
    return undefined;
  }
  const json = parseLenientObject(r.bodyText);
  const queryCreds = r.query.has('secret') || r.query.has('token') || (json === undefined && r.rawQuery !== '');
  if (queryCreds || (json === undefined && r.bodyText.trim() !== '')) {
    const message = queryCreds
      ? QUERY_STRING_REJECTED
      : 'The request cannot be processed: the payload is not valid JSON.';
    sendJson(r.res, 200, { error: true, message, code: 'REST-1101' });
    return undefined;
  }
  return {
    secret: stringField(json, 'secret'),
    token: stringField(json, 'token'),
    graph: stringField(json, 'graph'),
    lifetime: json?.['lifetime'],
  };
}

function operate(sim: Sim, r: SimRequest, f: Fields): Record<string, unknown> | TokenFailure {
  const jwt = sim.version.era === 'jwt';
  const op = r.method === 'PUT' ? 'Refresh' : r.method === 'DELETE' ? 'Drop' : 'Generate';
  if (!['GET', 'POST', 'PUT', 'DELETE'].includes(r.method)) {
    return {
      kind: 'bad_request',
      code: CODE_BAD_REQUEST,
      message: `${op} token failed, method ${r.method} is not supported.`,
    };
  }
  // A secret wins over any Authorization header (clients send their cached one along).
  const who: Principal | TokenFailure = f.secret
    ? principalFromSecret(sim, f.secret, op)
    : f.basicAllowed === false
      ? { kind: 'bad_request', code: CODE_BAD_REQUEST, message: `${op} token failed, a secret is required.` } // [infer]
      : principalFromBasic(sim, r.req.headers.authorization, op);
  if (isFailure(who)) return who;
  if (op === 'Drop') {
    const record = ownedToken(sim, who, f.token, op);
    if (isFailure(record)) return record;
    sim.state.revokeToken(record.token);
    return {
      code: 'REST-0000',
      expiration: -1,
      error: false,
      message: 'Drop token successfully.',
      token: record.token,
    };
  }
  if (op === 'Refresh' && jwt) {
    // Inferred: 4.1 has no refresh on the wire (clients mint anew), so say so in RESTPP's words.
    return {
      kind: 'bad_request',
      code: 'REST-1101',
      message: 'The request cannot be processed: JWT tokens cannot be refreshed, request a new token instead.',
    };
  }
  const lifetime = parseLifetime(sim, f.lifetime, op, jwt);
  if (isFailure(lifetime)) return lifetime;
  if (op === 'Refresh') {
    const record = ownedToken(sim, who, f.token, op);
    if (isFailure(record)) return record;
    sim.state.refreshToken(record, lifetime);
    return {
      code: 'REST-0000',
      expiration: record.expiresAt,
      error: false,
      message: 'Refresh token successfully.',
      token: record.token,
    };
  }
  const record = mint(sim, who, { graph: f.graph, lifetime, jwt, graphRequired: !jwt && !f.secret });
  if (isFailure(record)) return record;
  return generated(sim, record, !f.secret);
}

function generated(sim: Sim, record: SimToken, byPassword: boolean): Record<string, unknown> {
  const message = `Generate new token successfully.${sim.version.era === 'query' ? '' : WARNING}`;
  const omit = sim.omitTokenExpiration && sim.version.atLeast36;
  // Before 4.1 a username/password token is nested in `results`; 4.1 puts it at the top.
  const tokenPart =
    byPassword && sim.version.era !== 'jwt' ? { results: { token: record.token } } : { token: record.token };
  return { code: 'REST-0000', ...(omit ? {} : { expiration: record.expiresAt }), error: false, message, ...tokenPart };
}
