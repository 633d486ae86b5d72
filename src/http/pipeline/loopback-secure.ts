import type { Request, RequestHandler } from 'express';
import { isIP } from 'node:net';

/**
 * Development only: a plain-http request from this machine to a loopback name counts as secure, so the
 * Secure (and __Host-) session cookie is set. Browsers treat http://localhost and http://127.0.0.1 as
 * secure contexts and keep Secure cookies there, so the cookie loses nothing; any other host over plain
 * http still needs https (or COOKIE_SECURE=false). express-session and the login route read req.secure.
 */
export function loopbackCountsAsSecure(): RequestHandler {
  return (req, _res, next) => {
    if (req.protocol === 'http' && isLoopbackRequest(req)) Object.defineProperty(req, 'secure', { value: true });
    next();
  };
}

function isLoopbackRequest(req: Request): boolean {
  return isLoopbackAddress(req.socket.remoteAddress ?? '') && isLoopbackHost(req.hostname);
}

export function isLoopbackAddress(address: string): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(v4) === 4) return v4.startsWith('127.');
  return address === '::1';
}

/** The names browsers treat as potentially trustworthy over http (localhost, *.localhost, loopback IPs). */
export function isLoopbackHost(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || isLoopbackAddress(name);
}
