import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';
import type { Step } from './step.js';

export type HeaderList = ReadonlyArray<readonly [string, string]>;

/** helmet's headers for each transport: HSTS and upgrade-insecure-requests only mean something over https. */
export interface SecurityHeaderSets {
  https: HeaderList;
  http: HeaderList;
}

/**
 * The headers helmet sets, worked out once per transport by running it against a recorder: with this
 * configuration they never depend on anything else in the request, and setting a fixed list spares a
 * dozen middleware calls per request.
 */
export function securityHeaders(): SecurityHeaderSets {
  return { https: recordHeaders(helmetConfigured('https')), http: recordHeaders(helmetConfigured('http')) };
}

function recordHeaders(middleware: ReturnType<typeof helmet>): HeaderList {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: unknown) => void headers.set(name, String(value)),
    removeHeader: (name: string) => void headers.delete(name),
  };
  let finished = false;
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, () => {
    finished = true;
  });
  if (!finished) throw new Error('helmet did not finish synchronously; its headers cannot be precomputed');
  return [...headers];
}

/** helmet's headers for the transport the browser used (the socket, or X-Forwarded-Proto from a trusted proxy). */
export function setSecurityHeaders(sets: SecurityHeaderSets = securityHeaders()): Step {
  return (_req, res, ctx) => {
    for (const [name, value] of ctx.forwarded.proto === 'https' ? sets.https : sets.http) res.setHeader(name, value);
  };
}

/**
 * helmet's defaults with a CSP tightened for the demo page: own scripts and styles only, nothing inline.
 * Over plain http there is no HSTS (browsers ignore it there) and no upgrade-insecure-requests, which
 * would send the page's own scripts to an https port that does not exist and leave a blank page.
 */
export function helmetConfigured(transport: 'https' | 'http' = 'https') {
  const https = transport === 'https';
  return helmet({
    contentSecurityPolicy: {
      useDefaults: true,
      directives: {
        'default-src': ["'self'"],
        'script-src': ["'self'"],
        'style-src': ["'self'"],
        'img-src': ["'self'", 'data:'],
        'connect-src': ["'self'"],
        'font-src': ["'self'"],
        'form-action': ["'self'"],
        'frame-ancestors': ["'none'"],
        'object-src': ["'none'"],
        'base-uri': ["'none'"],
        'upgrade-insecure-requests': https ? [] : null,
      },
    },
    strictTransportSecurity: https,
  });
}
