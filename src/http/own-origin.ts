import type { ForwardedFor } from '../relay/header-policy.js';

export type TrustProxySetting = boolean | number | string | readonly string[];

/**
 * The origin the browser used to reach us, from the scheme and host as the trust-proxy setting sees
 * them (forwardedFor, or Express's req.protocol and req.host). Null when unknowable.
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
