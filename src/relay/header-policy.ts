import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

/**
 * DESIGN §4, both ways. Runs on every relayed request, so lookups are Set/startsWith, never a regex.
 *
 * Upstream drops, besides the browser's credentials (Cookie, Authorization, the CSRF header):
 * - hop-by-hop headers and any header the Connection header names (RFC 9110 §7.6.1);
 * - Host (undici sets the data server's) and Expect (undici refuses it);
 * - Origin and Referer: they describe the browser's page, which the data server has no use for, and
 *   leaking frontend URLs upstream is pointless; the CSRF/origin check already ran in the BFF;
 * - any Forwarded / X-Forwarded-* / X-Real-IP / X-Request-Id the browser sent: spoofable, so the BFF
 *   writes its own (X-Forwarded-For = the client address Express computed with its trust-proxy setting).
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
const UPSTREAM_DROP = [
  ...HOP_BY_HOP,
  'cookie',
  'authorization',
  'host',
  'expect',
  'origin',
  'referer',
  'forwarded',
  'x-real-ip',
  'x-request-id',
];
const DOWNSTREAM_DROP = [...HOP_BY_HOP, 'set-cookie', 'set-cookie2', 'authorization'];
/** Connection values that name no other header; the common case skips parsing. */
const PLAIN_CONNECTION = new Set(['keep-alive', 'close', 'Keep-Alive', 'Close']);

export class HeaderPolicy {
  private readonly upstreamDrop: ReadonlySet<string>;
  private readonly downstreamDrop: ReadonlySet<string> = new Set(DOWNSTREAM_DROP);

  /** `csrfHeader`: the configured CSRF header name, any case. */
  constructor(csrfHeader: string) {
    this.upstreamDrop = new Set([...UPSTREAM_DROP, csrfHeader.toLowerCase()]);
  }

  /** Flat [name, value, …] list for undici (no object to build, no key normalisation). */
  upstream(incoming: IncomingHttpHeaders, token: string, requestId: string, fwd: ForwardedFor): string[] {
    const named = connectionNamed(incoming.connection);
    const out: string[] = [];
    for (const name in incoming) {
      const value = incoming[name];
      if (value === undefined || this.upstreamDrop.has(name)) continue;
      if (name.startsWith('proxy-') || name.startsWith('x-forwarded-')) continue;
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
