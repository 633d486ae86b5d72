import { BlockList, isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

export type TrustProxySetting = boolean | number | string | readonly string[];

/** Express's named ranges (proxy-addr), so a list TRUST_PROXY means here what it means to Express. */
const PRESETS: Record<string, readonly string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** Whether the directly connected peer is a trusted proxy, whose X-Forwarded-* headers count. */
export function trustsPeer(setting: TrustProxySetting): (address: string | undefined) => boolean {
  if (typeof setting === 'boolean') return () => setting;
  if (typeof setting === 'number') return () => setting > 0;
  const items = (typeof setting === 'string' ? setting.split(',') : setting).map((s) => s.trim()).filter(Boolean);
  const list = new BlockList();
  for (const item of items.flatMap((i) => PRESETS[i] ?? [i])) {
    const [address = '', prefix] = item.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return (address) => {
    if (address === undefined) return false;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    if (mapped !== undefined && list.check(mapped, 'ipv4')) return true;
    return list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  };
}

const firstValue = (header: string | string[] | undefined) =>
  (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim() || undefined;

/**
 * The origin the browser used to reach us: scheme and host, taking X-Forwarded-Proto/Host only when the
 * peer is a trusted proxy. Null when unknowable.
 */
export function ownOrigin(req: IncomingMessage, trusted: (address: string | undefined) => boolean): string | null {
  const viaProxy = trusted(req.socket.remoteAddress);
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  const proto = (viaProxy ? firstValue(req.headers['x-forwarded-proto']) : undefined) ?? (encrypted ? 'https' : 'http');
  const host = (viaProxy ? firstValue(req.headers['x-forwarded-host']) : undefined) ?? req.headers.host;
  if (host === undefined) return null;
  return normalizeOrigin(`${proto}://${host}`);
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
