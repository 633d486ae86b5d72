import type { ForwardedFor } from '../../relay/header-policy.js';

export type TrustProxySetting = boolean | number | string | readonly string[];

/**
 * The origin the browser used to reach us, from the scheme and host as the trust-proxy setting sees
 * them (the request context's forwarded view). Null when unknowable.
 */
export function ownOrigin(seen: Pick<ForwardedFor, 'proto' | 'host'>): string | null {
  return seen.host ? normalizeOrigin(`${seen.proto}://${seen.host}`) : null;
}

/** Lower-cased scheme://host[:port] without default ports, or null when it is not an http(s) origin. */
export function normalizeOrigin(value: string): string | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null;
  } catch {
    return null;
  }
}

/**
 * ALLOWED_ORIGINS as CORS and the CSRF guard both read it: an Origin matches when its serialized form
 * (URL origin: lower-case scheme and host, no default port) equals a listed one's. The answer is that
 * listed origin's serialized form (config stores it so), so a header echoed back is always the
 * operator's entry, never the caller's bytes.
 */
export function originAllowList(origins: readonly string[]): (origin: string | undefined) => string | null {
  const listed = new Set(origins.map((o) => normalizeOrigin(o)).filter((o) => o !== null));
  return (origin) => {
    const serialized = origin === undefined ? null : normalizeOrigin(origin);
    return serialized !== null && listed.has(serialized) ? serialized : null;
  };
}
