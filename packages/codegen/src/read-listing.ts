import { CodegenError, Exit, usage } from './errors.js';
import type { EndpointListing } from './query-module.js';

/** A listing of thousands of queries is a few MiB; more is not a listing. */
const MAX_LISTING_BYTES = 16 * 1024 * 1024;
const CSRF = { 'X-Requested-With': 'XMLHttpRequest' };

/** Loopback hosts, where plain http never leaves the machine (the service itself allows http logins there). */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** A graph name as TigerGraph spells one (it goes into a path and the generated module). */
export const isGraphName = (name: string): boolean => /^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name);

export interface ReadHooks {
  /** A line for the person running it (which server, where the secret came from). */
  info?: (line: string) => void;
  /** A value that must never be printed (the session cookie): the caller's output redacts it. */
  protect?: (value: string) => void;
}

/**
 * The service's URL, refused before the secret is read when plain http would carry that secret across a
 * network: the service answers such a login 403 https_required anyway, but only after the secret went out.
 */
export function serviceUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usage(`--service must be the service's http(s) URL, got '${raw}'`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw usage(`--service must be the service's http(s) URL, got '${raw}'`);
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname))
    throw usage(
      `--service ${url.origin} is plain http to another machine: the secret would cross the network in clear; use https`,
    );
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * The body as JSON, refusing more than MAX_LISTING_BYTES; a refusal names the server and its answer. Also the
 * service's `tgbff` CLI's read of every answer (src/cli/service-http.ts), so the bound is written once.
 */
export async function readJson(res: Response, what: string): Promise<unknown> {
  const declared = Number(res.headers.get('Content-Length'));
  if (declared > MAX_LISTING_BYTES) {
    await res.body?.cancel();
    throw new CodegenError(Exit.other, 'listing_too_large', `${what} answered ${declared} bytes, more than a listing`);
  }
  // Read chunk by chunk: an answer without Content-Length is cut at the bound, not buffered whole.
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of (res.body ?? []) as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    if (bytes > MAX_LISTING_BYTES) {
      await res.body?.cancel().catch(() => undefined);
      throw new CodegenError(Exit.other, 'listing_too_large', `${what} answered more than a listing`);
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CodegenError(Exit.other, 'unexpected_response', `${what} answered ${res.status} with no JSON`);
  }
}

/**
 * A refused call as a CodegenError. The graph's refusal exits 7: the service's `graph_not_found` code at
 * login, or the data server's answer quoting the graph (`Graph 'x' does not exist.`).
 */
function refusal(res: Response, body: unknown, what: string, graph: string): CodegenError {
  const error = (body as { error?: unknown; message?: unknown } | undefined)?.error;
  const message =
    typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string'
      ? (error as { message: string }).message
      : typeof (body as { message?: unknown })?.message === 'string'
        ? (body as { message: string }).message
        : `status ${res.status}`;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (code === 'graph_not_found' || (res.status === 400 && message.includes(`'${graph}'`)))
    return new CodegenError(Exit.graphNotFound, 'graph_not_found', `${what} refused: ${message}`);
  const exit = res.status === 401 || res.status === 403 ? Exit.badCredentials : Exit.other;
  return new CodegenError(exit, 'refused', `${what} refused: ${message}`);
}

/** One request to a server, redirects not followed; no answer within `timeoutMs` is exit 6 naming `what`. */
export async function call(url: string, init: RequestInit, timeoutMs: number, what: string): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
  } catch (err) {
    throw new CodegenError(Exit.unreachable, 'unreachable', `${what} did not answer: ${String(err)}`, { cause: err });
  }
}

/** The listing must be a JSON object of entries; anything else is not one (odd entries the generator skips). */
function listingOf(body: unknown): EndpointListing {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new CodegenError(Exit.other, 'unexpected_response', 'the endpoint listing is not a JSON object');
  return body as EndpointListing;
}

/**
 * Through a running service (`base` from serviceUrl): logs in with the secret, reads
 * `GET /api/endpoints/<graph>?dynamic=true` over the relay, and logs out whatever happened.
 */
export async function readThroughService(
  base: string,
  graph: string,
  secret: string,
  timeoutMs: number,
  hooks: ReadHooks = {},
): Promise<EndpointListing> {
  const what = `the service at ${base}`;
  const login = await call(
    `${base}/auth/login`,
    {
      method: 'POST',
      headers: { ...CSRF, 'Content-Type': 'application/json' },
      body: JSON.stringify({ secret, graph }),
    },
    timeoutMs,
    what,
  );
  const loginBody = await readJson(login, what);
  if (login.status !== 200) throw refusal(login, loginBody, `${what} (login)`, graph);
  // The session cookie, whatever its name (__Host-tgbff, or tgbff with COOKIE_SECURE=false).
  const cookie = login.headers
    .getSetCookie()
    .map((line) => line.split(';')[0]!)
    .join('; ');
  hooks.protect?.(cookie);
  const headers = { ...CSRF, Cookie: cookie };
  try {
    const res = await call(
      `${base}/api/endpoints/${encodeURIComponent(graph)}?dynamic=true`,
      { headers },
      timeoutMs,
      what,
    );
    const body = await readJson(res, what);
    if (res.status !== 200) throw refusal(res, body, what, graph);
    return listingOf(body);
  } finally {
    await call(`${base}/auth/logout`, { method: 'POST', headers }, timeoutMs, what)
      .then((res) => res.body?.cancel())
      .catch(() => undefined);
  }
}

/** Straight from the data server (RESTPP) with a token: the same listing the relay would have passed on. */
export async function readFromDataServer(
  restppUrl: string,
  graph: string,
  token: string,
  timeoutMs: number,
): Promise<EndpointListing> {
  const what = `the data server at ${restppUrl}`;
  const res = await call(
    `${restppUrl.replace(/\/+$/, '')}/endpoints/${encodeURIComponent(graph)}?dynamic=true`,
    { headers: { Authorization: `Bearer ${token}` } },
    timeoutMs,
    what,
  );
  const body = await readJson(res, what);
  if (res.status !== 200 || (body as { error?: unknown }).error === true) throw refusal(res, body, what, graph);
  return listingOf(body);
}
