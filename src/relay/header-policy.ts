import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

/**
 * DESIGN §4, both ways. Runs on every relayed request, so lookups are Set/startsWith, never a regex.
 *
 * Upstream gets only an allowlist of the browser's headers (DEFAULT_FORWARD_HEADERS plus the operator's
 * RELAY_FORWARD_HEADERS), then the BFF's own: Authorization (the token), X-Request-Id and X-Forwarded-*
 * (X-Forwarded-For = the client address as the trust-proxy setting sees it). A denylist let any header
 * nobody thought of through (X-HTTP-Method-Override, X-Original-URL, X-Rewrite-URL, …), which a proxy in
 * front of TigerGraph may honour. Content-Length is not forwarded: the body is buffered and undici frames it.
 * Downstream drops Set-Cookie (the data server must never set cookies on the BFF's origin), hop-by-hop
 * headers, Authorization, CORS headers (the BFF owns CORS), any header the BFF already set (its security
 * headers win), and any header whose value contains the token.
 */
export interface ForwardedFor {
  readonly clientIp: string | undefined;
  readonly proto: string;
  readonly host: string | undefined;
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

/**
 * Content negotiation, the body's type and encoding, and the query knobs TigerGraph documents that only
 * shape one answer (GSQL-TIMEOUT, RESPONSE-LIMIT). Left out on purpose: Accept-Encoding (a compressed
 * 403 could not be read for its token-refusal code), GSQL-ASYNC (detaches the query from the request, so
 * no deadline or per-session limit would bound it) and the resource knobs an administrator sets
 * (GSQL-THREAD-LIMIT, GSQL-QueryLocalMemLimitMB, GSQL-REPLICA). RELAY_FORWARD_HEADERS adds to this.
 */
export const DEFAULT_FORWARD_HEADERS: readonly string[] = [
  'accept',
  'accept-language',
  'content-type',
  'content-encoding',
  'gsql-timeout',
  'response-limit',
];

/**
 * Never forwarded, whatever RELAY_FORWARD_HEADERS says (config refuses them by name): the browser's
 * credentials, framing, the BFF's own forwarding headers, and method/URL override headers.
 */
export const NEVER_FORWARDED: readonly string[] = [
  ...HOP_BY_HOP,
  'cookie',
  'authorization',
  'proxy-authorization',
  'host',
  'content-length',
  'expect',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
  'x-request-id',
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
  'x-original-url',
  'x-rewrite-url',
  'x-original-method',
];
const DOWNSTREAM_DROP = [...HOP_BY_HOP, 'set-cookie', 'set-cookie2', 'authorization'];
/** Connection values that name no other header; the common case skips parsing. */
const PLAIN_CONNECTION = new Set(['keep-alive', 'close', 'Keep-Alive', 'Close']);

export class HeaderPolicy {
  private readonly forward: ReadonlySet<string>;
  private readonly downstreamDrop: ReadonlySet<string> = new Set(DOWNSTREAM_DROP);

  /**
   * `csrfHeader`: the configured CSRF header name, any case (never forwarded: it is the BFF's business).
   * `extra`: RELAY_FORWARD_HEADERS, lower-case, already checked against NEVER_FORWARDED by config.
   */
  constructor(csrfHeader: string, extra: readonly string[] = []) {
    const never = new Set([...NEVER_FORWARDED, csrfHeader.toLowerCase()]);
    this.forward = new Set([...DEFAULT_FORWARD_HEADERS, ...extra].filter((name) => !never.has(name)));
  }

  /** Flat [name, value, …] list for undici (no object to build, no key normalisation). */
  upstream(incoming: IncomingHttpHeaders, token: string, requestId: string, fwd: ForwardedFor): string[] {
    const named = connectionNamed(incoming.connection);
    const out: string[] = [];
    for (const name in incoming) {
      const value = incoming[name];
      if (value === undefined || !this.forward.has(name)) continue;
      if (named !== null && named.has(name)) continue;
      if (typeof value === 'string') out.push(name, value);
      else for (const v of value) out.push(name, v);
    }
    out.push('authorization', `Bearer ${token}`, 'x-request-id', requestId, 'x-forwarded-proto', fwd.proto);
    if (fwd.clientIp !== undefined) out.push('x-forwarded-for', fwd.clientIp);
    if (fwd.host !== undefined) out.push('x-forwarded-host', fwd.host);
    return out;
  }

  /** Copies the allowed upstream response headers onto `res` (status is set by the caller). */
  downstream(upstream: IncomingHttpHeaders, res: ServerResponse, token: string): void {
    const named = connectionNamed(upstream.connection);
    for (const name in upstream) {
      const value = upstream[name];
      if (value === undefined || this.downstreamDrop.has(name)) continue;
      if (name.startsWith('proxy-') || name.startsWith('access-control-')) continue;
      if (named !== null && named.has(name)) continue;
      if (res.hasHeader(name) || mentions(value, token)) continue;
      res.setHeader(name, value);
    }
  }
}

function connectionNamed(value: string | string[] | undefined): Set<string> | null {
  if (value === undefined || (typeof value === 'string' && PLAIN_CONNECTION.has(value))) return null;
  const names = new Set<string>();
  for (const part of (Array.isArray(value) ? value.join(',') : value).split(',')) {
    const name = part.trim().toLowerCase();
    if (name !== '') names.add(name);
  }
  return names;
}

function mentions(value: string | string[], token: string): boolean {
  if (typeof value === 'string') return value.includes(token);
  for (const v of value) if (v.includes(token)) return true;
  return false;
}
