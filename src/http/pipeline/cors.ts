import { originAllowList } from './own-origin.js';
import type { Step } from './step.js';

export interface OriginOptions {
  allowedOrigins: readonly string[];
  /** Header name a cross-site form or image cannot send; any non-empty value passes. */
  csrfHeader: string;
}

const CORS_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';

/**
 * Credentialed CORS for listed origins only; everyone else gets no CORS headers at all. Answers a
 * preflight itself, so it runs before the CSRF guard.
 */
export function cors(options: OriginOptions): Step {
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
