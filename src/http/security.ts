import type { RequestHandler } from 'express';
import helmet from 'helmet';
import { AppError } from '../errors.js';
import { normalizeOrigin, ownOrigin, trustsPeer, type TrustProxySetting } from './own-origin.js';

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

/** helmet's defaults with a CSP tightened for the demo page: own scripts and styles only, nothing inline. */
export function helmetMiddleware(): RequestHandler {
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
      },
    },
  });
}

/** Credentialed CORS for listed origins only; everyone else gets no CORS headers at all. */
export function corsMiddleware(options: Pick<SecurityOptions, 'allowedOrigins' | 'csrfHeader'>): RequestHandler {
  const allowed = new Set(options.allowedOrigins.map((o) => normalizeOrigin(o)).filter((o) => o !== null));
  const allowHeaders = `${options.csrfHeader}, content-type, x-request-id`;
  return (req, res, next) => {
    res.vary('Origin');
    const origin = req.get('origin');
    const normalized = origin === undefined ? null : normalizeOrigin(origin);
    if (normalized === null || !allowed.has(normalized)) return next();
    res.setHeader('Access-Control-Allow-Origin', origin as string);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    if (req.method === 'OPTIONS' && req.get('access-control-request-method') !== undefined) {
      res.setHeader('Access-Control-Allow-Methods', CORS_METHODS);
      res.setHeader('Access-Control-Allow-Headers', allowHeaders);
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    res.setHeader('Access-Control-Expose-Headers', 'X-Request-Id');
    next();
  };
}

/**
 * `/api/*` (every method) and state-changing `/auth/*` and `/admin/*` need the CSRF header, which a
 * cross-site form cannot send and CORS only lets listed origins send; an Origin, when present, must
 * be our own or listed.
 */
export function csrfGuard(options: SecurityOptions): RequestHandler {
  const allowed = new Set(options.allowedOrigins.map((o) => normalizeOrigin(o)).filter((o) => o !== null));
  const trusted = options.trustProxy === undefined ? undefined : trustsPeer(options.trustProxy);
  const header = options.csrfHeader;
  return (req, _res, next) => {
    if (!isGuarded(req.method, req.path)) return next();
    const value = req.get(header);
    if (value === undefined || value.trim() === '') {
      return next(new AppError(403, 'csrf_rejected', `Missing required header ${header}`));
    }
    const origin = req.get('origin');
    if (origin !== undefined) {
      const normalized = normalizeOrigin(origin);
      const ok = normalized !== null && (allowed.has(normalized) || normalized === ownOrigin(req, trusted));
      if (!ok) return next(new AppError(403, 'csrf_rejected', 'Origin not allowed'));
    }
    next();
  };
}

function isGuarded(method: string, path: string): boolean {
  if (path === '/api' || path.startsWith('/api/')) return true;
  if (SAFE_METHODS.has(method)) return false;
  return ['/auth', '/admin'].some((p) => path === p || path.startsWith(`${p}/`));
}
