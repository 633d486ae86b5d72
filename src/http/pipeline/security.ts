import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import helmet from 'helmet';
import { AppError } from '../../errors.js';
import { forwardedFor } from './forwarded.js';
import { normalizeOrigin, originAllowList, ownOrigin, type TrustProxySetting } from './own-origin.js';

export interface SecurityOptions {
  allowedOrigins: readonly string[];
  /** Header name a cross-site form or image cannot send; any non-empty value passes. */
  csrfHeader: string;
  /**
   * Whether X-Forwarded-Proto/Host count when working out our own origin. Unset: the app's own
   * `trust proxy` setting decides (through req.protocol and req.host).
   */
  trustProxy?: TrustProxySetting;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const CORS_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';

/** helmet, CORS, then the CSRF guard, in that order: a preflight must be answered before the guard sees it. */
export function securityMiddleware(options: SecurityOptions): RequestHandler[] {
  return [helmetMiddleware(), corsMiddleware(options), csrfGuard(options)];
}

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

/**
 * helmet's headers as a middleware (precomputed, see securityHeaders), chosen by the transport the browser
 * used (req.protocol: the socket, or X-Forwarded-Proto from a trusted proxy).
 */
export function helmetMiddleware(): RequestHandler {
  const sets = securityHeaders();
  return (req, res, next) => {
    for (const [name, value] of req.protocol === 'https' ? sets.https : sets.http) res.setHeader(name, value);
    next();
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

/** Credentialed CORS for listed origins only; everyone else gets no CORS headers at all. */
export function corsMiddleware(options: Pick<SecurityOptions, 'allowedOrigins' | 'csrfHeader'>): RequestHandler {
  const cors = corsCheck(options);
  return (req, res, next) => {
    if (!cors(req, res)) next();
  };
}

/** The CORS step on plain node objects: true when it answered the request (a preflight). */
export function corsCheck(options: Pick<SecurityOptions, 'allowedOrigins' | 'csrfHeader'>): (req: IncomingMessage, res: ServerResponse) => boolean {
  const listed = originAllowList(options.allowedOrigins);
  const allowHeaders = `${options.csrfHeader}, content-type, x-request-id`;
  return (req, res) => {
    const vary = res.getHeader('Vary');
    res.setHeader('Vary', vary === undefined || vary === '' ? 'Origin' : `${String(vary)}, Origin`);
    const allowed = listed(req.headers.origin);
    if (allowed === null) return false;
    res.setHeader('Access-Control-Allow-Origin', allowed);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      res.setHeader('Access-Control-Allow-Methods', CORS_METHODS);
      res.setHeader('Access-Control-Allow-Headers', allowHeaders);
      res.setHeader('Access-Control-Max-Age', '600');
      res.statusCode = 204;
      res.end();
      return true;
    }
    res.setHeader('Access-Control-Expose-Headers', 'X-Request-Id');
    return false;
  };
}

/**
 * `/api/*` (every method) and every state-changing request need the CSRF header, which a cross-site
 * form cannot send and CORS only lets listed origins send; an Origin, when present, must be our own or
 * listed.
 */
export function csrfGuard(options: SecurityOptions): RequestHandler {
  const check = csrfCheck(options);
  const forwarded = options.trustProxy === undefined ? undefined : forwardedFor(options.trustProxy);
  return (req, _res, next) => {
    // Without an explicit trust setting, Express's req.protocol/req.host (the app's `trust proxy`) decide.
    next(check(req, req.path, () => ownOrigin(forwarded ? forwarded(req) : { proto: req.protocol, host: req.host })) ?? undefined);
  };
}

/** The CSRF step on plain node objects: the refusal, or null to go on. `own` is asked only when an Origin came. */
export function csrfCheck(
  options: Pick<SecurityOptions, 'allowedOrigins' | 'csrfHeader'>,
): (req: IncomingMessage, path: string, own: () => string | null) => AppError | null {
  const listed = originAllowList(options.allowedOrigins);
  const header = options.csrfHeader.toLowerCase();
  return (req, path, own) => {
    if (!isGuarded(req.method ?? 'GET', path)) return null;
    const raw = req.headers[header];
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    if (value === undefined || value.trim() === '') {
      return new AppError(403, 'csrf_rejected', `Missing required header ${options.csrfHeader}`);
    }
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const serialized = normalizeOrigin(origin);
      const ok = serialized !== null && (listed(origin) !== null || serialized === own());
      if (!ok) return new AppError(403, 'csrf_rejected', 'Origin not allowed');
    }
    return null;
  };
}

/**
 * Every state-changing request is guarded whatever its path, so no spelling of a route (case, trailing
 * slash, percent-encoding) can reach it unguarded; `/api` is guarded for every method because reads
 * there spend the session's token. The lane matches `/api` with this same case-sensitive prefix.
 */
function isGuarded(method: string, path: string): boolean {
  return !SAFE_METHODS.has(method) || path === '/api' || path.startsWith('/api/');
}
