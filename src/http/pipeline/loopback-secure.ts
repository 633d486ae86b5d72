import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { ForwardedFor } from '../../relay/header-policy.js';

/**
 * Whether the browser counts the connection as secure, which decides whether login may set the Secure
 * (and __Host-) cookie: https as the trusted forwarded view sees it, or, in development only
 * (`loopbackIsSecure`), plain http from this machine to a loopback name. Browsers treat http://localhost
 * and http://127.0.0.1 as secure contexts and keep Secure cookies there, so the cookie loses nothing; any
 * other host over plain http still needs https (or COOKIE_SECURE=false).
 */
export function countsAsSecure(req: IncomingMessage, seen: ForwardedFor, loopbackIsSecure: boolean): boolean {
  if (seen.proto === 'https') return true;
  return (
    loopbackIsSecure &&
    seen.proto === 'http' &&
    isLoopbackAddress(req.socket.remoteAddress ?? '') &&
    isLoopbackHost(hostnameOf(seen.host ?? ''))
  );
}

/** The host without its port, as Express's req.hostname gives it (an IPv6 literal keeps its brackets). */
function hostnameOf(host: string): string {
  const end = host.startsWith('[') ? host.indexOf(']') + 1 : 0;
  const colon = host.indexOf(':', end);
  return colon === -1 ? host : host.slice(0, colon);
}

export function isLoopbackAddress(address: string): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(v4) === 4) return v4.startsWith('127.');
  return address === '::1';
}

/** The names browsers treat as potentially trustworthy over http (localhost, *.localhost, loopback IPs). */
export function isLoopbackHost(hostname: string): boolean {
  const name = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || isLoopbackAddress(name);
}
