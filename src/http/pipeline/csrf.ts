import { AppError } from '../../errors.js';
import type { OriginOptions } from './cors.js';
import { normalizeOrigin, originAllowList, ownOrigin } from './own-origin.js';
import type { Step } from './step.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Every state-changing request, whatever its path (so no spelling of a route can reach it unguarded), and
 * every request on the /api lane (reads there spend the session's token) needs the CSRF header, which a
 * cross-site form cannot send and CORS only lets listed origins send; an Origin, when present, must be
 * our own (as the trusted forwarded view sees it) or listed.
 */
export function csrfGuard(options: OriginOptions & { serverToServerPosts?: readonly string[] }): Step {
  const listed = originAllowList(options.allowedOrigins);
  const header = options.csrfHeader.toLowerCase();
  // Exact paths only (routes are strict and case-sensitive, so no other spelling reaches them): endpoints a
  // server calls with no cookie and no browser, authenticated by what they carry (a signed logout token).
  const serverPosts = new Set(options.serverToServerPosts ?? []);
  return (req, _res, ctx) => {
    if (SAFE_METHODS.has(req.method ?? 'GET') && ctx.lane !== 'api') return;
    if (req.method === 'POST' && serverPosts.has(ctx.path)) return;
    const raw = req.headers[header];
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    if (value === undefined || value.trim() === '') {
      throw new AppError('csrf_rejected', `Missing required header ${options.csrfHeader}`);
    }
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const serialized = normalizeOrigin(origin);
      const ok = serialized !== null && (listed(origin) !== null || serialized === ownOrigin(ctx.forwarded));
      if (!ok) throw new AppError('csrf_rejected', 'Origin not allowed');
    }
  };
}
