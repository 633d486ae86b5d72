import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';
import type { ForwardedFor } from '../../relay/header-policy.js';
import type { TrustProxySetting } from './own-origin.js';

type Trust = (address: string, hop: number) => boolean;

/** Express's `trust proxy` setting as a function, compiled exactly as Express compiles it. */
function compileTrust(setting: TrustProxySetting): Trust {
  if (setting === true) return () => true;
  if (setting === false) return () => false;
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  const list = typeof setting === 'string' ? setting.split(',').map((v) => v.trim()) : [...setting];
  return proxyaddr.compile(list);
}

const firstValue = (header: string | string[] | undefined): string | undefined => {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  const comma = value.indexOf(',');
  return comma === -1 ? value.trim() : value.slice(0, comma).trim();
};

/** The forwarded view, and whether the request's peer is a proxy TRUST_PROXY trusts. */
export interface ForwardedView extends ForwardedFor {
  /** The peer is a trusted proxy: its X-Forwarded-* count, and so does the X-Request-Id it passes on. */
  readonly viaProxy: boolean;
}

/**
 * The client address, scheme and host of a request as TRUST_PROXY lets us see them, with the rules of
 * Express's req.ip, req.protocol and req.host: the one forwarded view, worked out once per request in its
 * context, for the security headers, the CSRF guard, the guess limits, login's https check, the relay and
 * the request id (request-id.ts).
 */
export function forwardedFor(setting: TrustProxySetting): (req: IncomingMessage) => ForwardedView {
  const trust = compileTrust(setting);
  return (req) => {
    const viaProxy = trust(req.socket.remoteAddress ?? '', 0);
    const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
    const proto =
      (viaProxy ? firstValue(req.headers['x-forwarded-proto']) : undefined) || (encrypted ? 'https' : 'http');
    const forwardedHost = viaProxy ? firstValue(req.headers['x-forwarded-host']) : undefined;
    const host = forwardedHost || req.headers.host || undefined;
    return { clientIp: proxyaddr(req, trust), proto, host, viaProxy };
  };
}
