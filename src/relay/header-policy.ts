import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

/**
 * Headers cross the relay by allowlist only, both ways (README, "Routes": `ANY /api/<path>`). Runs on every relayed request, so lookups are Set/startsWith, never a regex.
 *
 * Upstream gets only an allowlist of the browser's headers (DEFAULT_FORWARD_HEADERS plus the operator's
 * RELAY_FORWARD_HEADERS), then the BFF's own: Authorization (the token), X-Request-Id and X-Forwarded-*
 * (X-Forwarded-For = the client address as the trust-proxy setting sees it), and with tracing on the W3C
 * traceparent of the BFF's upstream span. A denylist let any header
 * nobody thought of through (X-HTTP-Method-Override, X-Original-URL, X-Rewrite-URL, …), which a proxy in
 * front of TigerGraph may honour. Content-Length is not forwarded: the body is buffered and undici frames it.
 * Downstream, by allowlist too (DEFAULT_RESPONSE_HEADERS plus RELAY_RESPONSE_HEADERS): what describes the
 * body, caching, a download's name and a retry hint. A block list let through whatever nobody listed:
 * Clear-Site-Data (logs the user out of the BFF's origin), Refresh and Location (send the page elsewhere),
 * Alt-Svc, WWW-Authenticate (a browser login prompt), Strict-Transport-Security (max-age=0 over http), Server.
 * Even an allowed header is dropped when the BFF already set it (its security headers win), when the
 * Connection header names it, or when its value contains the token.
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
 * no deadline or per-session limit would bound it, and anyone could read its result by id; with
 * DETACHED_QUERIES the relay sends it itself for the starts it records, relay/detached-queries.ts) and the resource knobs an administrator sets
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
  // Trace context is the BFF's own: with tracing on it sends its span's, never a client's.
  'traceparent',
  'tracestate',
];
/**
 * Upstream answer headers the browser gets. TigerGraph documents no informative headers of its own (RESTPP
 * answers JSON through nginx; docs/tigergraph-wire.md §5 names none, the simulator sends only Content-Type and
 * Content-Length), so this is the generic list: the body's type, size, encoding, language and range, a
 * download's file name, caching and validators, and Retry-After. RELAY_RESPONSE_HEADERS adds to it. Cache-Control
 * is the relay's own (RELAYED_CACHE_CONTROL) unless RELAY_RESPONSE_HEADERS names it.
 */
export const DEFAULT_RESPONSE_HEADERS: readonly string[] = [
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'content-range',
  'accept-ranges',
  'content-disposition',
  'cache-control',
  'expires',
  'last-modified',
  'etag',
  'age',
  'pragma',
  'vary',
  'retry-after',
];

/**
 * Never passed to the browser, whatever RELAY_RESPONSE_HEADERS says (config refuses them by name, and any
 * name starting access-control- or proxy-): cookies, credentials and login prompts, headers that navigate,
 * clear or pin the BFF's origin, the BFF's own security and reporting headers, and hop-by-hop framing.
 */
export const NEVER_RETURNED: readonly string[] = [
  ...HOP_BY_HOP,
  'set-cookie',
  'set-cookie2',
  'authorization',
  'www-authenticate',
  'proxy-authenticate',
  'clear-site-data',
  'refresh',
  'location',
  'link',
  'alt-svc',
  'strict-transport-security',
  'content-security-policy',
  'content-security-policy-report-only',
  'permissions-policy',
  'cross-origin-opener-policy',
  'cross-origin-embedder-policy',
  'cross-origin-resource-policy',
  'origin-agent-cluster',
  'referrer-policy',
  'x-frame-options',
  'x-content-type-options',
  'x-xss-protection',
  'x-dns-prefetch-control',
  'x-permitted-cross-domain-policies',
  'report-to',
  'reporting-endpoints',
  'nel',
  'service-worker-allowed',
  'x-request-id',
];
export const NEVER_RETURNED_PREFIXES: readonly string[] = ['access-control-', 'proxy-'];
/** Connection values that name no other header; the common case skips parsing. */
const PLAIN_CONNECTION = new Set(['keep-alive', 'close', 'Keep-Alive', 'Close']);

/** Whether RELAY_RESPONSE_HEADERS may name `name` (lower-case). */
export const mayReturn = (name: string): boolean =>
  !NEVER_RETURNED.includes(name) && !NEVER_RETURNED_PREFIXES.some((p) => name.startsWith(p));

/**
 * What a relayed answer says about caching unless RELAY_RESPONSE_HEADERS names `cache-control`: the answer is one
 * user's data behind a cookie, so no shared cache in front of the service may keep it, and the browser keeps
 * no copy either (an upstream `public, max-age=…` would have let a CDN serve it to the next user).
 */
export const RELAYED_CACHE_CONTROL = 'private, no-store';

export class HeaderPolicy {
  private readonly forward: ReadonlySet<string>;
  private readonly returned: ReadonlySet<string>;
  /** Upstream's Cache-Control passes only when the operator named it in RELAY_RESPONSE_HEADERS. */
  private readonly upstreamCaching: boolean;

  /**
   * `csrfHeader`: the configured CSRF header name, any case (never forwarded: it is the BFF's business).
   * `extra`: RELAY_FORWARD_HEADERS, lower-case, already checked against NEVER_FORWARDED by config.
   * `extraReturned`: RELAY_RESPONSE_HEADERS, lower-case, already checked with mayReturn by config.
   */
  constructor(csrfHeader: string, extra: readonly string[] = [], extraReturned: readonly string[] = []) {
    const never = new Set([...NEVER_FORWARDED, csrfHeader.toLowerCase()]);
    this.forward = new Set([...DEFAULT_FORWARD_HEADERS, ...extra].filter((name) => !never.has(name)));
    this.returned = new Set([...DEFAULT_RESPONSE_HEADERS, ...extraReturned].filter(mayReturn));
    this.upstreamCaching = extraReturned.includes('cache-control');
  }

  /** Flat [name, value, …] list for undici (no object to build, no key normalisation). */
  upstream(
    incoming: IncomingHttpHeaders,
    token: string,
    requestId: string,
    fwd: ForwardedFor,
    traceparent?: string,
  ): string[] {
    const out = this.forwarded(incoming, []);
    out.push('authorization', `Bearer ${token}`, 'x-request-id', requestId, 'x-forwarded-proto', fwd.proto);
    if (fwd.clientIp !== undefined) out.push('x-forwarded-for', fwd.clientIp);
    if (fwd.host !== undefined) out.push('x-forwarded-host', fwd.host);
    if (traceparent !== undefined) out.push('traceparent', traceparent);
    return out;
  }

  /** The browser's headers that go upstream (the allowlist), pushed onto `out` as [name, value, …]. */
  forwarded(incoming: IncomingHttpHeaders, out: string[]): string[] {
    const named = connectionNamed(incoming.connection);
    for (const name in incoming) {
      const value = incoming[name];
      if (value === undefined || !this.forward.has(name)) continue;
      if (named !== null && named.has(name)) continue;
      if (typeof value === 'string') out.push(name, value);
      else for (const v of value) out.push(name, v);
    }
    return out;
  }

  /** Copies the allowed upstream response headers onto `res` (status is set by the caller). */
  downstream(upstream: IncomingHttpHeaders, res: ServerResponse, token: string): void {
    // Set first: an upstream Cache-Control then finds it set and is dropped (below).
    if (!this.upstreamCaching) res.setHeader('cache-control', RELAYED_CACHE_CONTROL);
    const named = connectionNamed(upstream.connection);
    for (const name in upstream) {
      if (!this.returned.has(name)) continue;
      const value = upstream[name];
      if (value === undefined) continue;
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
