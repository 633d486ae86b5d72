import { isServiceErrorCode } from './error-codes.js';
import { BffError, TigerGraphError } from './errors.js';
import {
  DEFAULT_RETRY,
  delayBefore,
  isIdempotent,
  isRetryableStatus,
  retryAfterMs,
  sleep,
  type RetryPolicy,
} from './retry.js';
import { queryString, type QueryParams } from './query-params.js';
import { SessionEvent, type SessionEndReason } from './events.js';

export interface ClientOptions {
  /** The service's origin, e.g. `https://bff.example.com`; empty (the default) for the page's own origin. */
  baseUrl?: string | undefined;
  /** The CSRF header (the service's `CSRF_HEADER`; default `X-Requested-With: XMLHttpRequest`). */
  csrfHeader?: string | undefined;
  csrfValue?: string | undefined;
  /** Retries of idempotent requests on 429 and 503; `{ retries: 0 }` turns them off. */
  retry?: Partial<RetryPolicy> | undefined;
  /** How long before the session's end `sessionexpiring` fires (default 60 s). */
  expiringLeadMs?: number | undefined;
  /** The fetch to use (default the global one); tests in Node pass one that keeps cookies. */
  fetch?: typeof fetch | undefined;
  /** How a single sign-on logout leaves the page (default `location.assign`). */
  navigate?: ((url: string) => void) | undefined;
}

// Every optional field also takes `undefined`: under `exactOptionalPropertyTypes` an app may pass a value it
// may not have (`{ signal }` from an optional argument) without spreading it in conditionally.
export interface CallOptions {
  signal?: AbortSignal | undefined;
}

/** `GET /auth/session`. */
export interface Session {
  authenticated: true;
  graph?: string;
  login: 'secret' | 'password' | 'oidc';
  username?: string;
  sub?: string;
  /** Single sign-on: the person's name (the ID token's `name`, else `preferred_username`). */
  name?: string;
  /** Single sign-on with the credential map: the rule that admitted the person (never its credential). */
  rule?: string;
  /** Single sign-on with the credential map: the graphs the rule opens (`*`: any its credential reaches). */
  graphs?: string[];
  tokenExpiresAt?: string;
  sessionExpiresAt?: string;
}

/** One entry of `GET /auth/sessions`: never a session id, only its opaque handle. */
export interface ListedSession {
  id: string;
  current: boolean;
  login: 'secret' | 'password' | 'oidc';
  graph: string | null;
  createdAt: string;
  /** Last use, to within the service's touch window (1 % of the idle timeout, at most 60 s). */
  lastSeenAt: string;
  client: string | null;
  address: string | null;
}

/** `GET /auth/methods`: which logins the service offers. */
export interface Methods {
  secret: boolean;
  password: boolean;
  oidc: boolean;
  oidcLoginUrl?: string;
  oidcLogoutUrl?: string;
  /**
   * Single sign-on uses the service's credential map: `oidcLoginUrl` takes `?graph=<g>`, and `session()`
   * names the rule and the graphs it opens.
   */
  oidcCredentialMap?: true;
  /** With the credential map and a live session it admitted: who, through which rule, which graphs. */
  signedIn?: { name: string; rule: string; graphs: string[] };
}

export type Credentials = { secret: string; graph?: string } | { username: string; password: string; graph: string };

export interface LoginResult {
  authenticated: true;
  graph?: string;
  tokenExpiresAt?: string;
}

export interface RelayInit extends CallOptions {
  /** An object is sent as JSON; a string as it is (with `Content-Type: application/json`). */
  body?: string | object | undefined;
  /** Query parameters appended to the path. */
  query?: QueryParams | undefined;
  /** Request headers; the relay forwards only those on its allowlist (`GSQL-TIMEOUT`, `RESPONSE-LIMIT`, …). */
  headers?: Record<string, string> | undefined;
}

export interface QueryOptions extends CallOptions {
  /** GET (parameters in the query string, the default) or POST (parameters as a JSON body). */
  method?: 'GET' | 'POST' | undefined;
  headers?: Record<string, string> | undefined;
}

/** `queryStatus` options: the graph to ask about (`graph_name`; TigerGraph's first graph when absent). */
export interface DetachedOptions extends CallOptions {
  graph?: string | undefined;
}

/** One detached query's status, as `GET /query_status` gives it. */
export interface QueryStatus {
  requestid: string;
  status: 'running' | 'success' | 'timeout' | 'aborted' | (string & {});
  startTime?: string;
  expirationTime?: string;
  url?: string;
  elapsedTime?: number;
}

interface TigerGraphEnvelope {
  error?: unknown;
  code?: unknown;
  message?: unknown;
  results?: unknown;
  request_id?: unknown;
}

/** A TigerGraph answer without what the call needs. */
const noResults = (data: TigerGraphEnvelope): TigerGraphError =>
  new TigerGraphError(200, undefined, 'The answer has no results', data);

const MAX_TIMER_MS = 2_147_483_647;

/** The page's location; undefined outside a browser (typed here so the package needs no DOM lib to check). */
const pageLocation = () => (globalThis as { location?: { href: string; assign(url: string): void } }).location;

/**
 * The service seen from a page: every call carries the CSRF header and the session cookie
 * (`credentials: 'include'`), service refusals become `BffError`s with a typed `code`, TigerGraph's own become
 * `TigerGraphError`s, idempotent requests are retried on 429 and 503 within bounds, and `sessionend` /
 * `sessionexpiring` events say when a login is needed. No state but the last session read.
 */
export class TgbffClient extends EventTarget {
  readonly #base: string;
  readonly #csrf: Record<string, string>;
  readonly #retry: RetryPolicy;
  readonly #lead: number;
  readonly #fetch: typeof fetch;
  readonly #navigate: (url: string) => void;
  #timers: Array<ReturnType<typeof setTimeout>> = [];
  #session: Session | null = null;

  constructor(options: ClientOptions = {}) {
    super();
    this.#base = (options.baseUrl ?? '').replace(/\/+$/, '');
    this.#csrf = { [options.csrfHeader ?? 'X-Requested-With']: options.csrfValue ?? 'XMLHttpRequest' };
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#lead = options.expiringLeadMs ?? 60_000;
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#navigate = options.navigate ?? ((url) => pageLocation()?.assign(url));
  }

  /** The session as last read (by `session()` or `login()`), without asking the service. */
  get currentSession(): Session | null {
    return this.#session;
  }

  /** Logs in; then reads the session so the expiry events are armed. Refusals throw `BffError`. */
  async login(credentials: Credentials, options: CallOptions = {}): Promise<LoginResult> {
    const res = await this.#send('POST', '/auth/login', { body: credentials, signal: options.signal });
    if (!res.ok) throw await this.#refusal(res);
    const result = (await res.json()) as LoginResult;
    await this.session(options);
    return result;
  }

  /**
   * Ends the session. A single sign-on session leaves the page for the service's `oidcLogoutUrl`, which ends
   * the identity provider's session too (returns `'navigated'`); any other is `POST /auth/logout` (`'ended'`).
   * `{ everywhere: true }` ends every session of the person first, on every device (then, for single
   * sign-on, leaves for the IdP's logout as well).
   */
  async logout(options: CallOptions & { everywhere?: boolean } = {}): Promise<'ended' | 'navigated'> {
    const everywhere = options.everywhere === true;
    if (this.#session?.login === 'oidc') {
      const { oidcLogoutUrl } = await this.methods(options);
      if (oidcLogoutUrl) {
        // The IdP's logout is a navigation, which cannot carry a body: the others end first.
        if (everywhere) await this.endOtherSessions(options);
        this.#end('logout');
        this.#navigate(new URL(oidcLogoutUrl, this.#base || pageLocation()?.href).href);
        return 'navigated';
      }
    }
    const res = await this.#send('POST', '/auth/logout', {
      signal: options.signal,
      ...(everywhere && { body: { everywhere: true } }),
    });
    if (res.status !== 204 && !res.ok) throw await this.#refusal(res);
    await res.body?.cancel();
    this.#end('logout');
    return 'ended';
  }

  /** `GET /auth/sessions`: every live session of the person (their principal), newest first; `current` is this one. */
  async sessions(options: CallOptions = {}): Promise<ListedSession[]> {
    const res = await this.#send('GET', '/auth/sessions', { signal: options.signal });
    if (!res.ok) throw await this.#refusal(res);
    return ((await res.json()) as { sessions: ListedSession[] }).sessions;
  }

  /**
   * `DELETE /auth/sessions/{id}`: ends one of the person's sessions (an `id` from `sessions()`); another
   * person's or an unknown id throws `BffError` `session_not_found`. This session's own id logs it out.
   */
  async endSession(id: string, options: CallOptions = {}): Promise<void> {
    const res = await this.#send('DELETE', `/auth/sessions/${encodeURIComponent(id)}`, { signal: options.signal });
    if (res.status !== 204 && !res.ok) throw await this.#refusal(res);
    await res.body?.cancel();
    // This session's own id logged it out: reading the session again tells `sessionend` listeners.
    if (this.#session !== null) await this.session(options);
  }

  /** `DELETE /auth/sessions`: ends every session of the person but this one; how many were ended. */
  async endOtherSessions(options: CallOptions = {}): Promise<number> {
    const res = await this.#send('DELETE', '/auth/sessions', { signal: options.signal });
    if (!res.ok) throw await this.#refusal(res);
    return ((await res.json()) as { ended: number }).ended;
  }

  /** The session, or null when there is none (a 401); arms `sessionexpiring` and `sessionend` at its end. */
  async session(options: CallOptions = {}): Promise<Session | null> {
    const res = await this.#send('GET', '/auth/session', { signal: options.signal, quiet: true });
    if (res.status === 401) {
      const error = await this.#refusal(res);
      this.#end(error.code === 'session_expired' || error.code === 'session_ended' ? error.code : 'not_authenticated');
      return null;
    }
    if (!res.ok) throw await this.#refusal(res);
    this.#session = (await res.json()) as Session;
    // The service's clock against this browser's, from the answer's Date header (0 when there is none).
    const serverNow = Date.parse(res.headers.get('Date') ?? '');
    this.#arm(this.#session, Number.isNaN(serverNow) ? 0 : serverNow - Date.now());
    return this.#session;
  }

  /** Which logins the service offers (public, no session needed). */
  async methods(options: CallOptions = {}): Promise<Methods> {
    const res = await this.#send('GET', '/auth/methods', { signal: options.signal });
    if (!res.ok) throw await this.#refusal(res);
    return (await res.json()) as Methods;
  }

  /**
   * `method` `/api<path>`: TigerGraph's answer as a `Response`, whatever its status (a relayed 403 included);
   * a refusal by the service itself (`path_not_allowed`, `session_expired`, …) throws `BffError`.
   */
  async relay(method: string, path: string, init: RelayInit = {}): Promise<Response> {
    if (!path.startsWith('/')) throw new TypeError(`relay path must start with "/": ${path}`);
    const query = init.query ? queryString(init.query) : '';
    const res = await this.#send(method.toUpperCase(), `/api${path}${query ? `?${query}` : ''}`, init);
    if (!res.ok && (await serviceError(res.clone())) !== undefined) throw await this.#refusal(res);
    return res;
  }

  /** An installed query's `results`; TigerGraph's refusal (`"error": true`) throws `TigerGraphError`. */
  async runQuery<T = unknown>(
    graph: string,
    name: string,
    params: QueryParams = {},
    options: QueryOptions = {},
  ): Promise<T[]> {
    const data = await this.#tigerGraph(await this.#queryCall(graph, name, params, options));
    if (!Array.isArray(data.results)) throw noResults(data);
    return data.results as T[];
  }

  /**
   * Starts an installed query in Detached Mode (`GSQL-ASYNC: true`) and returns TigerGraph's request id at
   * once; follow it with `queryStatus`, `queryResult` and `abortQuery`. Needs the service's DETACHED_QUERIES
   * (which keeps the id yours: nobody else can read or abort it) and RELAY_ALLOW opening those paths.
   */
  async runQueryAsync(
    graph: string,
    name: string,
    params: QueryParams = {},
    options: QueryOptions = {},
  ): Promise<string> {
    const headers = { ...options.headers, 'GSQL-ASYNC': 'true' };
    const data = await this.#tigerGraph(await this.#queryCall(graph, name, params, { ...options, headers }));
    if (typeof data.request_id !== 'string') throw noResults(data);
    return data.request_id;
  }

  /** A detached query's status, or null when TigerGraph (or, for someone else's id, the service) knows no such id. */
  async queryStatus(requestId: string, options: DetachedOptions = {}): Promise<QueryStatus | null> {
    const query = { ...(options.graph !== undefined && { graph_name: options.graph }), requestid: requestId };
    const data = await this.#tigerGraph(await this.relay('GET', '/query_status', { query, signal: options.signal }));
    const found = Array.isArray(data.results) ? (data.results as QueryStatus[]) : [];
    return found.find((s) => s.requestid === requestId) ?? null;
  }

  /**
   * A finished detached query's `results`. Still running, or an unknown id (someone else's reads the same),
   * throws `TigerGraphError` ("Unable to retrieve result for query …").
   */
  async queryResult<T = unknown>(requestId: string, options: CallOptions = {}): Promise<T[]> {
    const query = { requestid: requestId };
    const data = await this.#tigerGraph(await this.relay('GET', '/query_result', { query, signal: options.signal }));
    if (!Array.isArray(data.results)) throw noResults(data);
    return data.results as T[];
  }

  /**
   * Aborts detached queries of `graph`: one id, or `'all'` (with the service's DETACHED_QUERIES, all of yours
   * only). Returns the ids TigerGraph aborted.
   */
  async abortQuery(graph: string, requestId: string, options: CallOptions = {}): Promise<string[]> {
    const path = `/abortquery/${encodeURIComponent(graph)}`;
    const data = await this.#tigerGraph(
      await this.relay('GET', path, { query: { requestid: requestId }, signal: options.signal }),
    );
    const results = Array.isArray(data.results) ? (data.results as Array<{ aborted_queries?: unknown }>) : [];
    return results.flatMap((r) =>
      Array.isArray(r.aborted_queries)
        ? (r.aborted_queries as Array<{ requestid?: unknown }>)
            .map((q) => q.requestid)
            .filter((id): id is string => typeof id === 'string')
        : [],
    );
  }

  #queryCall(graph: string, name: string, params: QueryParams, options: QueryOptions): Promise<Response> {
    const path = `/query/${encodeURIComponent(graph)}/${encodeURIComponent(name)}`;
    const post = options.method === 'POST';
    return this.relay(post ? 'POST' : 'GET', path, {
      ...(post ? { body: params } : { query: params }),
      ...(options.headers && { headers: options.headers }),
      ...(options.signal && { signal: options.signal }),
    });
  }

  /** TigerGraph's JSON envelope; its refusal (`"error": true`, or not JSON) throws `TigerGraphError`. */
  async #tigerGraph(res: Response): Promise<TigerGraphEnvelope> {
    const text = await res.text();
    const data = parseJson(text) as TigerGraphEnvelope | undefined;
    if (!res.ok || data === undefined || data === null || data.error === true || data.error === 'true') {
      const message =
        typeof data?.message === 'string' && data.message ? data.message : `${res.status} from TigerGraph`;
      throw new TigerGraphError(
        res.status,
        typeof data?.code === 'string' ? data.code : undefined,
        message,
        data ?? text,
      );
    }
    return data;
  }

  /** Clears the expiry timers (a page that unmounts its app, a test that ends). */
  close(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers = [];
  }

  async #send(
    method: string,
    path: string,
    init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal | undefined; quiet?: boolean },
  ): Promise<Response> {
    const headers: Record<string, string> = { Accept: 'application/json', ...init.headers, ...this.#csrf };
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const retries = isIdempotent(method) ? this.#retry.retries : 0;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.#fetch(`${this.#base}${path}`, {
          method,
          headers,
          credentials: 'include',
          ...(body !== undefined && { body }),
          ...(init.signal && { signal: init.signal }),
        });
      } catch (err) {
        if (init.signal?.aborted) throw init.signal.reason;
        throw new BffError(
          'network_error',
          0,
          `No answer from ${this.#base || 'the service'}: ${String(err)}`,
          undefined,
          undefined,
          {
            cause: err,
          },
        );
      }
      // Only the service's own refusals made before anything reached TigerGraph are retried: a 429/503 that
      // TigerGraph itself answered (relayed as it came) means the query ran there, and nothing goes twice.
      if (attempt < retries && isRetryableStatus(res.status) && BEFORE_UPSTREAM.has(await serviceError(res.clone()))) {
        const wait = delayBefore(attempt, retryAfterMs(res.headers.get('Retry-After')), this.#retry);
        if (wait !== undefined) {
          await res.body?.cancel();
          await sleep(wait, init.signal);
          continue;
        }
      }
      if (res.status === 401 && !init.quiet) {
        const code = await serviceError(res.clone());
        if (
          code === 'not_authenticated' ||
          code === 'session_expired' ||
          code === 'session_ended' ||
          code === 'token_rejected'
        )
          this.#end(code);
      }
      return res;
    }
  }

  /** The answer as a `BffError` (its body read). */
  async #refusal(res: Response): Promise<BffError> {
    const text = await res.text();
    const data = parseJson(text) as { error?: { code?: unknown; message?: unknown } } | undefined;
    const retryAfter = retryAfterMs(res.headers.get('Retry-After'));
    const code = data?.error?.code;
    if (isServiceErrorCode(code)) {
      const message = typeof data?.error?.message === 'string' ? data.error.message : code;
      return new BffError(code, res.status, message, retryAfter, data);
    }
    return new BffError(
      'unexpected_response',
      res.status,
      `${res.status} ${res.statusText}`.trim(),
      retryAfter,
      data ?? text,
    );
  }

  #arm(session: Session, skewMs = 0): void {
    this.close();
    if (!session.sessionExpiresAt) return;
    // Time left by the service's clock: a browser clock ahead of it must not make the end look past.
    const left = Date.parse(session.sessionExpiresAt) - (Date.now() + skewMs);
    if (Number.isNaN(left)) return;
    const at = (ms: number, run: () => void) => {
      const timer = setTimeout(run, Math.min(Math.max(0, ms), MAX_TIMER_MS));
      // In Node (tests, server-side rendering) a pending expiry must not keep the process alive.
      (timer as { unref?: () => void }).unref?.();
      this.#timers.push(timer);
    };
    // Already within the lead (a short session, a page opened late): at once.
    at(left - this.#lead, () =>
      this.dispatchEvent(new SessionEvent('sessionexpiring', { expiresAt: session.sessionExpiresAt })),
    );
    // At the end, ask: the service may have ended it earlier (idle) or not yet (clock skew).
    // Never sooner than MIN_RECHECK_MS: with a skew the Date header could not show, the end may look past
    // while the session lives, and each check would re-arm at once (a tight loop of /auth/session).
    at(Math.max(left, MIN_RECHECK_MS), () => void this.session().catch(() => undefined));
  }

  #end(reason: SessionEndReason): void {
    const had = this.#session !== null;
    this.close();
    this.#session = null;
    // Only an end of a session this client knew of (or a logout): a page opened without one hears nothing.
    if (had || reason === 'logout') this.dispatchEvent(new SessionEvent('sessionend', { reason }));
  }
}

/** The service's refusals made before a request reached TigerGraph: safe to send again after the wait. */
const BEFORE_UPSTREAM = new Set<string | undefined>([
  'quota_exceeded',
  'too_many_requests',
  'rate_limited',
  'store_unavailable',
  'token_unavailable',
]);

/** The soonest the SDK asks /auth/session again when the session's end has come. */
const MIN_RECHECK_MS = 5_000;

/** The service's error code in an answer, or undefined for anything else (TigerGraph's envelope included). */
async function serviceError(res: Response): Promise<ReturnType<typeof codeOf>> {
  if (!res.headers.get('Content-Type')?.includes('json')) return undefined;
  return codeOf(parseJson(await res.text()));
}

function codeOf(data: unknown) {
  const code = (data as { error?: { code?: unknown } } | undefined)?.error?.code;
  return isServiceErrorCode(code) ? code : undefined;
}

function parseJson(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

export function createClient(options: ClientOptions = {}): TgbffClient {
  return new TgbffClient(options);
}
