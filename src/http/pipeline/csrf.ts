import type { IncomingMessage } from 'node:http';
import { AppError } from '../../errors.js';
import type { FaultLog } from '../../observability/fault-log.js';
import type { OriginOptions } from './cors.js';
import { normalizeOrigin, originAllowList, ownOrigin } from './own-origin.js';
import type { RequestContext } from './context.js';
import type { Step } from './step.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** How much of a value the caller sent a refusal repeats (origins are short; anything longer is cut). */
const SHOWN_CHARS = 100;

/**
 * A value from the request as a refusal's log line repeats it: at most SHOWN_CHARS characters, anything
 * outside printable ASCII (and the quote and backslash) written as a \u escape, so the caller cannot break
 * the sentence, a terminal or a log reader with it.
 */
export function bounded(value: string): string {
  const cut = value.length > SHOWN_CHARS ? value.slice(0, SHOWN_CHARS) : value;
  const escaped = cut.replace(
    /[^\x20-\x21\x23-\x5b\x5d-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return cut === value ? escaped : `${escaped}...`;
}

/** `bounded`, quoted: how a refusal's message quotes what the caller sent. */
export const shown = (value: string): string => `"${bounded(value)}"`;

/** Which check refused a request: its log code (docs/troubleshooting.md) and the sentence both name it. */
export const CSRF_CHECKS = ['csrf_header_missing', 'origin_not_allowed', 'origin_rewritten_by_proxy'] as const;
type Check = (typeof CSRF_CHECKS)[number];

/**
 * Every state-changing request, whatever its path (so no spelling of a route can reach it unguarded), and
 * every request on the /api lane (reads there spend the session's token) needs the CSRF header, which a
 * cross-site form cannot send and CORS only lets listed origins send; an Origin, when present, must be
 * our own (as the trusted forwarded view sees it) or listed. A refusal says which check failed, in its
 * answer and in one log line per check per interval (`faults`): a developer behind a dev server's proxy
 * learns what to change from the 403 itself.
 */
export function csrfGuard(
  options: OriginOptions & {
    serverToServerPosts?: readonly string[];
    bearerPaths?: readonly string[];
    faults?: FaultLog;
  },
): Step {
  const listed = originAllowList(options.allowedOrigins);
  const header = options.csrfHeader.toLowerCase();
  // Exact paths only (routes are strict and case-sensitive, so no other spelling reaches them): endpoints a
  // server calls with no cookie and no browser, authenticated by what they carry (a signed logout token).
  const serverPosts = new Set(options.serverToServerPosts ?? []);
  const bearerPaths = new Set(options.bearerPaths ?? []);
  const refuse = (check: Check, message: string, ctx: RequestContext, fields: Record<string, string>): AppError => {
    options.faults?.report({
      fault: check,
      message: `request refused: ${message}`,
      fields: { requestId: ctx.requestId, ...fields },
    });
    return new AppError('csrf_rejected', message);
  };
  return (req, _res, ctx) => {
    if (SAFE_METHODS.has(req.method ?? 'GET') && ctx.lane !== 'api') return;
    if (req.method === 'POST' && serverPosts.has(ctx.path)) return;
    if (bearerPaths.has(ctx.path)) return;
    const raw = req.headers[header];
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    if (value === undefined || value.trim() === '') {
      throw refuse(
        'csrf_header_missing',
        `Missing required header ${options.csrfHeader}: send it with every /api request and every change ` +
          `(fetch or XMLHttpRequest from your page; a form or a link cannot)`,
        ctx,
        { setting: 'CSRF_HEADER', header: options.csrfHeader },
      );
    }
    const origin = req.headers.origin;
    if (origin === undefined) return;
    const serialized = normalizeOrigin(origin);
    const own = ownOrigin(ctx.forwarded);
    if (serialized !== null && (listed(origin) !== null || serialized === own)) return;
    throw originRefusal(req, origin, serialized, own, options.allowedOrigins, refuse, ctx);
  };
}

/**
 * Why an Origin is neither ours nor listed, most specific first: the browser called it same-origin (or its
 * Referer names another origin), so a proxy between it and us rewrote the Host or the Origin; else the
 * origin is simply not listed. The untrusted values are quoted and bounded (`shown`); ALLOWED_ORIGINS itself
 * is in the log line only.
 */
function originRefusal(
  req: IncomingMessage,
  origin: string,
  serialized: string | null,
  own: string | null,
  allowed: readonly string[],
  refuse: (check: Check, message: string, ctx: RequestContext, fields: Record<string, string>) => AppError,
  ctx: RequestContext,
): AppError {
  const seen = shown(origin);
  const ours = own === null ? 'unknown (no Host header)' : shown(own);
  const fields = {
    origin: bounded(origin),
    ownOrigin: bounded(own ?? ''),
    setting: 'ALLOWED_ORIGINS',
    allowedOrigins: allowed.join(','),
  };
  if (serialized === null)
    return refuse(
      'origin_not_allowed',
      `Origin ${seen} is not an http(s) origin (a sandboxed frame or a file: page sends "null"); ` +
        `serve the page over http(s) from this service's origin or one in ALLOWED_ORIGINS`,
      ctx,
      fields,
    );
  const site = req.headers['sec-fetch-site'];
  const referer = typeof req.headers.referer === 'string' ? normalizeOrigin(req.headers.referer) : null;
  if (site === 'same-origin' || (referer !== null && referer !== serialized)) {
    const why =
      site === 'same-origin'
        ? `the browser sent it as a same-origin request from ${seen}`
        : `the page's Referer is from ${shown(referer ?? '')}`;
    return refuse(
      'origin_rewritten_by_proxy',
      `Origin ${seen} is not this service's own origin (${ours}), yet ${why}: a proxy in between rewrote ` +
        `the Host or the Origin header (a dev server proxy's changeOrigin: true does). Keep the Host ` +
        `(changeOrigin: false), or pass it as X-Forwarded-Host from a proxy TRUST_PROXY trusts, or add the ` +
        `page's origin to ALLOWED_ORIGINS`,
      ctx,
      {
        ...fields,
        ...(site === 'same-origin' ? { secFetchSite: 'same-origin' } : { referer: bounded(referer ?? '') }),
      },
    );
  }
  return refuse(
    'origin_not_allowed',
    `Origin ${seen} is not allowed: it is not this service's own origin (${ours}) and not in ALLOWED_ORIGINS`,
    ctx,
    fields,
  );
}
