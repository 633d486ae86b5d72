import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { AppError, isAppError } from '../errors.js';
import type { Metrics } from '../observability/metrics.js';
import type { Logger } from '../observability/logger.js';
import type { TraceSpan, Tracing } from '../observability/tracing.js';
import type { AllowRule } from './allowlist.js';
import { checkBodyEncoding } from './body-encoding.js';
import { concatPrefix, readPrefix, readRequestBody } from './body-prefix.js';
import {
  FILTERED_ANSWER_MAX_BYTES,
  type DetachedOwner,
  type DetachedPlan,
  type DetachedQueries,
} from './detached-queries.js';
import { HeaderPolicy, RELAYED_CACHE_CONTROL, type ForwardedFor } from './header-policy.js';
import { lingerThenClose } from './linger.js';
import { guardRelayRequest } from './path-guard.js';
import {
  queryLimits,
  withQueryLimits,
  withTimeoutParamCapped,
  type QueryGuardrails,
  type QueryLimits,
} from './query-guardrails.js';
import type { Coalescer, ExchangeNote } from './coalescing.js';
import { capBytes, declaredOverCap, ResponseCutError } from './response-cap.js';
import { streamBody } from './stream-body.js';
import { RelayCancel } from './relay-cancel.js';
import { readAnswer, type UpstreamAnswer } from './upstream-answer.js';
import { classifyUpstreamError, endedByClient, upstreamAppError, type UpstreamErrorKind } from './upstream-errors.js';

/** The relay's view of the token broker: knows nothing of sessions or Redis. */
export interface RelayAuth {
  token(): Promise<string>;
  /** The data server refused `token`: drop it if still current, mint once; null when no new token. */
  rejected(token: string): Promise<string | null>;
}

/** One relayed request's context, worked out by whoever received it. */
export interface RelayCall {
  auth: RelayAuth;
  requestId: string;
  /** The request target as received, mount included (e.g. `/api/query/g/q?x=1`), not decoded. */
  url: string;
  /** Client address, scheme and host as the trust-proxy setting sees them, for X-Forwarded-*. */
  forwarded: ForwardedFor;
  /**
   * When the request arrived (performance.now()); the upstream deadline counts from here, so time spent
   * on the session, the token, the body and in the pool's queue all come out of UPSTREAM_TIMEOUT_MS.
   * Default: when handle() is called.
   */
  arrivedAt?: number;
  /** The principal's keyed id; with `detached` on, the owner of the detached queries it starts or names. */
  owner?: DetachedOwner;
  /**
   * With RELAY_COALESCE on: who asks, as coalescing keys it (the principal and its token's scope). Identical
   * concurrent reads with the same value share one upstream call (coalescing.ts). Absent: never shared.
   */
  shareAs?: string;
}

export interface Relay {
  handle(req: IncomingMessage, res: ServerResponse, call: RelayCall): Promise<void>;
}

export interface RelayOptions {
  /** One keep-alive Pool for the data server's origin; its connect timeout bounds connection setup. */
  dispatcher: Dispatcher;
  /** Data server base URL, possibly with a path prefix (4.x: http://h:14240/restpp). */
  upstreamUrl: string;
  allow: AllowRule[];
  /** From arrival to the answer's headers; then the longest pause between chunks of the answer. */
  upstreamTimeoutMs: number;
  /** Larger request bodies are refused (413) before anything goes upstream; smaller ones are buffered. */
  maxBodyBytes: number;
  /** RELAY_COMPRESSED_BODIES: a body with a Content-Encoding is inflated to check its size, else refused (415). */
  compressedBodies?: boolean;
  csrfHeader: string;
  /** RELAY_FORWARD_HEADERS: browser headers forwarded besides the default allowlist. */
  forwardHeaders?: readonly string[];
  /** RELAY_RESPONSE_HEADERS: upstream answer headers passed to the browser besides the default allowlist. */
  responseHeaders?: readonly string[];
  /** Caps on GSQL-TIMEOUT and RESPONSE-LIMIT, with defaults when the browser sends none; absent: passed as sent. */
  guardrails?: QueryGuardrails;
  /** RELAY_MAX_RESPONSE_BYTES: a longer answer is refused (declared) or cut (streamed); absent: no cap. */
  maxResponseBytes?: number;
  metrics?: Metrics;
  logger?: Logger;
  /** Where the relay is mounted; default '/api'. */
  mountPath?: string;
  /** OpenTelemetry: a client span per upstream call, its traceparent sent along. Absent: tracing is off. */
  tracing?: Tracing;
  /** DETACHED_QUERIES: detached queries owned by who started them (detached-queries.ts). Absent: off. */
  detached?: DetachedQueries;
  /** RELAY_COALESCE: identical concurrent reads of one principal share a call. Absent: off. */
  coalescer?: Coalescer;
}

export function createRelay(opts: RelayOptions): Relay {
  return new UndiciRelay(opts);
}

class UndiciRelay implements Relay {
  private readonly origin: string;
  private readonly host: string;
  private readonly basePath: string;
  private readonly mount: string;
  private readonly policy: HeaderPolicy;

  constructor(private readonly opts: RelayOptions) {
    const url = new URL(opts.upstreamUrl);
    this.origin = url.origin;
    this.host = url.hostname;
    this.basePath = url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : url.pathname;
    this.mount = opts.mountPath ?? '/api';
    this.policy = new HeaderPolicy(opts.csrfHeader, opts.forwardHeaders, opts.responseHeaders);
  }

  async handle(req: IncomingMessage, res: ServerResponse, call: RelayCall): Promise<void> {
    const method = req.method ?? 'GET';
    // Path first: a refused request must never cost a token or an upstream call.
    const found = guardRelayRequest(this.opts.allow, method, call.url, this.mount);
    const plan =
      this.opts.detached === undefined || call.owner === undefined
        ? null
        : await this.opts.detached.plan(method, found, req.headers, call.owner);
    if (plan?.answer !== undefined) return this.answerHere(req, res, plan.answer, method, call);
    const target = plan?.target === undefined ? found : { path: found.path, target: plan.target };
    // Then the guardrails, headers and a built-in's `timeout` parameter: a malformed one is 400 before it
    // costs a token either.
    const guardrails = this.opts.guardrails;
    const limits = guardrails ? queryLimits(req.headers, guardrails, target.path) : null;
    const path = this.basePath + (guardrails ? withTimeoutParamCapped(target, guardrails) : target.target);
    const started = call.arrivedAt ?? performance.now();
    const cancel = new RelayCancel();
    res.once('close', () => {
      if (!res.writableFinished) cancel.abort('client');
    });
    // The connection can be gone before we listen (the client left while the session loaded, or Node's
    // parser refused the body after the headers): nothing would end the body read until the deadline.
    if (res.destroyed) cancel.abort('client');
    const deadline = setTimeout(
      () => cancel.abort('deadline'),
      Math.max(0, started + this.opts.upstreamTimeoutMs - performance.now()),
    );
    try {
      const detach = plan?.async === true;
      const coalescer = this.opts.coalescer;
      // A detached start is never shared: its request id is recorded for the caller that started it.
      const work =
        !detach && coalescer !== undefined && call.shareAs !== undefined && coalescer.eligible(method, target.path)
          ? this.shared(coalescer, call.shareAs, req, method, call, path, limits, cancel)
          : this.exchange(req, method, call, path, limits, detach, cancel);
      const { answer, token } = await cancel.race(work, discard);
      clearTimeout(deadline);
      this.refuseOverCap(answer);
      const after = plan?.after;
      const shown = after === undefined ? answer : await cancel.race(this.rewritten(answer, after), () => undefined);
      this.observe(method, shown.statusCode, started);
      await this.respond(shown, res, token, call.requestId);
    } catch (err) {
      clearTimeout(deadline);
      if (cancel.reason === 'client') return; // the browser left: nobody to answer
      if (!req.complete) lingerThenClose(req, res);
      const failure =
        cancel.reason === 'deadline' ? upstreamAppError(this.fail('timeout', err, call.requestId), err) : err;
      this.observe(method, isAppError(failure) ? failure.status : 500, started);
      throw failure;
    }
  }

  /**
   * Body, token, upstream call, and one replay with a new token if the data server refused the first.
   * The body first: one over the cap must cost no token call either.
   */
  private async exchange(
    req: IncomingMessage,
    method: string,
    call: RelayCall,
    path: string,
    limits: QueryLimits | null,
    detach: boolean,
    cancel: RelayCancel,
  ): Promise<{ answer: UpstreamAnswer; token: string }> {
    return this.exchangeBody(req, method, call, path, await this.body(req), limits, detach, cancel);
  }

  private async body(req: IncomingMessage): Promise<Buffer | null> {
    const body = await readRequestBody(req, this.opts.maxBodyBytes);
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && body !== null)
      await checkBodyEncoding(encoding, body, this.opts.maxBodyBytes, this.opts.compressedBodies === true);
    return body;
  }

  /** A read that may share the call of an identical one of the same principal in flight (coalescing.ts). */
  private async shared(
    coalescer: Coalescer,
    shareAs: string,
    req: IncomingMessage,
    method: string,
    call: RelayCall,
    path: string,
    limits: QueryLimits | null,
    cancel: RelayCancel,
  ): Promise<{ answer: UpstreamAnswer; token: string }> {
    const body = await this.body(req);
    const forwarded = this.policy.forwarded(req.headers, []);
    const key = coalescer.keyOf({ shareAs, method, path, limits, forwarded, body });
    return coalescer.share(
      key,
      cancel,
      (flight, note) => this.exchangeBody(req, method, call, path, body, limits, false, flight, note),
      () => this.exchangeBody(req, method, call, path, body, limits, false, cancel),
    );
  }

  /** `note`, when given, learns whether the outcome is this session's own (its token steps). */
  private async exchangeBody(
    req: IncomingMessage,
    method: string,
    call: RelayCall,
    path: string,
    body: Buffer | null,
    limits: QueryLimits | null,
    detach: boolean,
    cancel: RelayCancel,
    note?: ExchangeNote,
  ): Promise<{ answer: UpstreamAnswer; token: string }> {
    const { auth, requestId } = call;
    let token = await auth.token().catch((err: unknown) => {
      if (note) note.ownOnly = true;
      throw err;
    });
    let answer = await this.send(req, method, call, path, body, token, limits, detach, cancel);
    if (answer.tokenRejected) {
      if (note) note.ownOnly = true;
      const fresh = await auth.rejected(token);
      if (fresh === null) throw this.tokenRejected(requestId);
      token = fresh;
      answer = await this.send(req, method, call, path, body, token, limits, detach, cancel);
      if (answer.tokenRejected) throw this.tokenRejected(requestId);
    }
    return { answer, token };
  }

  private async send(
    req: IncomingMessage,
    method: string,
    call: RelayCall,
    path: string,
    body: Buffer | null,
    token: string,
    limits: QueryLimits | null,
    detach: boolean,
    signal: RelayCancel,
  ): Promise<UpstreamAnswer> {
    const tracing = this.opts.tracing;
    if (tracing === undefined)
      return this.sendOnce(req, method, call, path, body, token, limits, detach, signal, undefined);
    return tracing.inSpan(
      'tigergraph.request',
      (span) => this.sendOnce(req, method, call, path, body, token, limits, detach, signal, span),
      'client',
    );
  }

  private async sendOnce(
    req: IncomingMessage,
    method: string,
    call: RelayCall,
    path: string,
    body: Buffer | null,
    token: string,
    limits: QueryLimits | null,
    /** `GSQL-ASYNC: true`, for a detached start the relay records. */
    detach: boolean,
    signal: RelayCancel,
    span: TraceSpan | undefined,
  ): Promise<UpstreamAnswer> {
    const requestId = call.requestId;
    const allowed = this.policy.upstream(req.headers, token, requestId, call.forwarded, span?.traceparent());
    const headers = limits === null ? allowed : withQueryLimits(allowed, limits);
    // Only a start the detached-query owner records is detached (the header is never forwarded as sent).
    if (detach) headers.push('gsql-async', 'true');
    if (span !== undefined) {
      span.set('http.request.method', method);
      span.set('server.address', this.host);
    }
    try {
      const answer = await this.opts.dispatcher.request({
        origin: this.origin,
        path,
        method: method as Dispatcher.HttpMethod,
        headers,
        body,
        signal,
        headersTimeout: this.opts.upstreamTimeoutMs,
        bodyTimeout: this.opts.upstreamTimeoutMs,
      });
      span?.set('http.response.status_code', answer.statusCode);
      return await readAnswer(answer.statusCode, answer.headers, answer.body);
    } catch (err) {
      if (signal.aborted) throw err;
      throw upstreamAppError(this.fail(classifyUpstreamError(err), err, requestId), err);
    }
  }

  /** A detached-query answer read whole and given to `after` (the owner's view of it). */
  private async rewritten(answer: UpstreamAnswer, after: NonNullable<DetachedPlan['after']>): Promise<UpstreamAnswer> {
    let body = answer.head ?? Buffer.alloc(0);
    if (answer.rest !== null) {
      const prefix = await readPrefix(answer.rest, FILTERED_ANSWER_MAX_BYTES - body.length);
      if (!prefix.ended) {
        answer.rest.on('error', () => undefined).destroy();
        this.opts.metrics?.upstreamErrors.inc({ kind: 'too_large' });
        throw new AppError(
          'response_too_large',
          "The data server's list of queries is larger than this service filters",
        );
      }
      body = Buffer.concat([body, concatPrefix(prefix)]);
    }
    const shown = await after(answer.statusCode, body);
    const headers = { ...answer.headers, 'content-length': String(shown.length) };
    delete headers['content-encoding'];
    delete headers['transfer-encoding'];
    return { statusCode: answer.statusCode, headers, tokenRejected: false, head: shown, rest: null };
  }

  /** A detached-query answer the relay gives itself (an id of someone else reads as one that never existed). */
  private answerHere(
    req: IncomingMessage,
    res: ServerResponse,
    answer: { status: number; body: object },
    method: string,
    call: RelayCall,
  ): void {
    if (!req.complete) req.resume();
    const text = JSON.stringify(answer.body);
    res.statusCode = answer.status;
    res.setHeader('cache-control', RELAYED_CACHE_CONTROL);
    res.setHeader('content-type', 'application/json');
    res.setHeader('content-length', Buffer.byteLength(text));
    res.end(text);
    this.observe(method, answer.status, call.arrivedAt ?? performance.now());
  }

  private tokenRejected(requestId: string): AppError {
    return upstreamAppError(this.fail('rejected', null, requestId), null);
  }

  /** 502 response_too_large for an answer declared longer than RELAY_MAX_RESPONSE_BYTES, before anything is sent. */
  private refuseOverCap(answer: UpstreamAnswer): void {
    const max = this.opts.maxResponseBytes;
    const over = max === undefined ? null : declaredOverCap(answer.headers, max);
    if (over === null) return;
    // Not read at all: the connection goes (destroying an unread undici body errors; nobody needs it).
    answer.rest?.on('error', () => undefined).destroy();
    this.opts.metrics?.upstreamErrors.inc({ kind: 'too_large' });
    throw over;
  }

  /** Headers, then the bytes already read (if any), then the rest with backpressure. */
  private async respond(answer: UpstreamAnswer, res: ServerResponse, token: string, requestId: string): Promise<void> {
    const max = this.opts.maxResponseBytes;
    res.statusCode = answer.statusCode;
    this.policy.downstream(answer.headers, res, token);
    if (answer.rest === null) {
      res.end(answer.head ?? undefined);
      return;
    }
    if (answer.head !== null) res.write(answer.head);
    if (max !== undefined) capBytes(answer.rest, max, answer.head?.length ?? 0);
    try {
      await streamBody(answer.rest, res);
    } catch (err) {
      // Bytes may be out already, so no error page is possible: the browser sees a cut connection.
      if (err instanceof ResponseCutError) {
        this.opts.metrics?.upstreamErrors.inc({ kind: 'too_large' });
        this.opts.logger?.warn({ requestId, maxBytes: max }, 'relay answer cut at RELAY_MAX_RESPONSE_BYTES');
      } else if (!endedByClient(err)) this.fail(classifyUpstreamError(err), err, requestId);
    }
  }

  private observe(method: string, status: number, started: number): void {
    this.opts.metrics?.relayDuration.observe(
      { method, status_class: `${Math.floor(status / 100)}xx` },
      (performance.now() - started) / 1000,
    );
  }

  private fail(kind: UpstreamErrorKind, err: unknown, requestId: string): UpstreamErrorKind {
    this.opts.metrics?.upstreamErrors.inc({ kind });
    const code = (err as { code?: unknown } | null)?.code;
    // Debug only: the answer's error goes through the fault log, one line per cause per interval with the
    // address and TG_RESTPP_URL (error-handler.ts), and the access line has its code.
    this.opts.logger?.debug({ requestId, kind, code }, 'relay upstream failure');
    return kind;
  }
}

/** An answer that came after its request was cancelled: free its pooled connection. */
const discard = ({ answer }: { answer: UpstreamAnswer }): void => {
  answer.rest?.destroy();
};
