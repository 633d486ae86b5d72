import { TigerGraphError } from './errors.js';
import type { HttpCall } from './http.js';
import type { TokenOp } from './parse-token-response.js';
import type { AdminCredentials, WireEra } from './types.js';

export interface TokenCallParams {
  secret?: string;
  /** User/password instead of a secret (3.5+ only): Basic auth plus the graph in the body. */
  basic?: AdminCredentials;
  graph?: string;
  token?: string;
  lifetime?: number;
}

export interface TokenEndpoints {
  restppUrl: string;
  gsqlUrl: string | undefined;
}

export function basicAuth(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

/** The HTTP call for one token operation in one wire era; pure, so every era's shape is unit-tested. */
export function buildTokenCall(era: WireEra, op: TokenOp, params: TokenCallParams, urls: TokenEndpoints): HttpCall {
  if (era === 'query') return queryCall(op, params, urls.restppUrl);
  if (era === 'json') return jsonCall(op, params, urls.restppUrl);
  return jwtCall(op, params, gsqlBase(urls));
}

const METHOD = { request: 'POST', refresh: 'PUT', delete: 'DELETE' } as const;

function queryCall(op: TokenOp, params: TokenCallParams, restppUrl: string): HttpCall {
  if (params.secret === undefined) {
    throw new TigerGraphError(
      'bad_request',
      'Cannot request a token with username/password for versions < 3.5; pass a secret.',
    );
  }
  const query = new URLSearchParams({ secret: params.secret });
  if (op !== 'request' && params.token !== undefined) query.set('token', params.token);
  if (op !== 'delete' && params.lifetime !== undefined) query.set('lifetime', String(params.lifetime));
  const method = op === 'request' ? 'GET' : METHOD[op];
  return { method, url: `${trim(restppUrl)}/requesttoken?${query.toString()}` };
}

function jsonCall(op: TokenOp, params: TokenCallParams, restppUrl: string): HttpCall {
  const body: Record<string, string> = {};
  if (params.secret !== undefined) body['secret'] = params.secret;
  // A graph goes with Basic auth (required there) and with a secret on a request (checked against it).
  if (params.graph !== undefined && (params.basic !== undefined || op === 'request')) body['graph'] = params.graph;
  if (op !== 'request' && params.token !== undefined) body['token'] = params.token;
  // Every official client sends the lifetime as a string of seconds.
  if (op !== 'delete' && params.lifetime !== undefined) body['lifetime'] = String(params.lifetime);
  return withAuth(
    { method: METHOD[op], url: `${trim(restppUrl)}/requesttoken`, body: JSON.stringify(body) },
    params.basic,
  );
}

function jwtCall(op: TokenOp, params: TokenCallParams, gsqlUrl: string): HttpCall {
  const url = `${gsqlUrl}/gsql/v1/tokens`;
  if (op === 'delete') {
    // Dropping a JWT needs a logged-in user; a secret logs in as the special user __GSQL__secret.
    const creds =
      params.basic ??
      (params.secret !== undefined ? { username: '__GSQL__secret', password: params.secret } : undefined);
    return withAuth({ method: 'DELETE', url, body: JSON.stringify({ tokens: params.token ?? '' }) }, creds);
  }
  // 4.1+ has no refresh on the wire: "refresh" mints a new token the same way.
  const body: Record<string, string> = {};
  if (params.secret !== undefined) body['secret'] = params.secret;
  if (params.graph !== undefined) body['graph'] = params.graph;
  if (params.lifetime !== undefined) body['lifetime'] = String(params.lifetime);
  return withAuth({ method: 'POST', url, body: JSON.stringify(body) }, params.basic);
}

function withAuth(call: HttpCall, creds: AdminCredentials | undefined): HttpCall {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (creds !== undefined) headers['authorization'] = basicAuth(creds.username, creds.password);
  return { ...call, headers };
}

/** 4.1+ clients are often configured with only https://host:14240/restpp; the admin server is its origin. */
function gsqlBase(urls: TokenEndpoints): string {
  if (urls.gsqlUrl !== undefined) return trim(urls.gsqlUrl);
  return trim(urls.restppUrl).replace(/\/restpp$/, '');
}

export function trim(url: string): string {
  return url.replace(/\/+$/, '');
}
