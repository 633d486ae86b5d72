import type { IncomingMessage } from 'node:http';
import { AppError } from '../../errors.js';

/**
 * Why a login over plain http was refused, naming the fix for the caller's actual case: a browser
 * drops a Secure cookie set over plain http, so a login that "worked" would leave no session.
 */
export function httpsRequired(req: IncomingMessage, options: { development: boolean }): AppError {
  const message =
    req.headers['x-forwarded-proto'] !== undefined
      ? 'Login needs https. This request came through a proxy that is not trusted: set TRUST_PROXY to its address so its X-Forwarded-Proto counts'
      : options.development
        ? `Login needs https for the Secure session cookie. Open http://localhost:${localPort(req)}/ on this machine, serve https, or set COOKIE_SECURE=false for plain-http development`
        : 'Login needs https. Serve the service over https, or behind a TLS-terminating proxy set TRUST_PROXY';
  return new AppError('https_required', message);
}

function localPort(req: IncomingMessage): number {
  return req.socket.localPort ?? 8080;
}
