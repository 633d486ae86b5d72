import type { IncomingHttpHeaders } from 'node:http';

/**
 * OpenTelemetry traces, as the rest of the service sees them. Absent (undefined) when tracing is off,
 * which is the default: then nothing of OpenTelemetry is even loaded (otel-tracing.ts is imported by
 * service.ts only when an OTLP endpoint is configured), and every call site is one `undefined` check.
 *
 * Spans are made by hand at the few places that matter (request, session load, token calls and lease
 * waits, the upstream call), not by the http/undici/ioredis auto-instrumentations: see docs/tracing.md
 * for why (secrets in their default attributes, the header policy, ESM loader hooks, cost).
 */
export interface Tracing {
  /** The server span of one request; its parent is the caller's `traceparent` only with TRACE_TRUST_PARENT. */
  startRequest(method: string, headers: IncomingHttpHeaders): TraceSpan;
  /** Runs `fn` with `span` as the active span, so the spans started beneath (asynchronously too) are its children. */
  within<T>(span: TraceSpan, fn: () => T): T;
  /** A child of the active span around `fn`, ended when it settles; a failure is recorded by its code only. */
  inSpan<T>(name: string, fn: (span: TraceSpan) => Promise<T>, kind?: 'internal' | 'client'): Promise<T>;
  /** Flushes what is buffered and stops exporting (service close). */
  shutdown(): Promise<void>;
}

/** The tracing settings config.ts parsed from the standard OTEL_* variables (and TRACE_TRUST_PARENT). */
export interface TracingSettings {
  /** OTLP/HTTP traces URL: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  tracesUrl: string;
  serviceName: string;
  /** OTEL_TRACES_SAMPLER, the specification's names. */
  sampler:
    | 'always_on'
    | 'always_off'
    | 'traceidratio'
    | 'parentbased_always_on'
    | 'parentbased_always_off'
    | 'parentbased_traceidratio';
  /** OTEL_TRACES_SAMPLER_ARG for the ratio samplers, 0 to 1. */
  samplerRatio: number;
  /** Take a caller's `traceparent` as the request span's parent (only behind a proxy that sets it). */
  trustParent: boolean;
  /** The service's version, a resource attribute. */
  serviceVersion?: string;
}

/** What the service does with a span: attributes it chose (never a secret), a status, an end. */
export interface TraceSpan {
  readonly traceId: string;
  /** The W3C `traceparent` naming this span as the parent (sent to TigerGraph with the upstream call). */
  traceparent(): string;
  set(name: string, value: string | number | boolean): void;
  rename(name: string): void;
  /** Marks the span failed; `code` is the error vocabulary's code or an error's name, never its message. */
  fail(code: string): void;
  end(): void;
}

/** `fn` in a child span when tracing is on; just `fn` (no allocation) when it is off. */
export function traced<T>(
  tracing: Tracing | undefined,
  name: string,
  fn: () => Promise<T>,
  kind?: 'internal' | 'client',
): Promise<T> {
  return tracing === undefined ? fn() : tracing.inSpan(name, fn, kind);
}

/** The code a failed span records: an AppError's code, a TigerGraph error's kind, else the error's name. */
export function failureCode(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const { code, kind, name } = err as { code?: unknown; kind?: unknown; name?: unknown };
    if (typeof code === 'string' && /^[a-z_]{1,40}$/.test(code)) return code;
    if (typeof kind === 'string' && /^[a-z_]{1,40}$/.test(kind)) return kind;
    if (typeof name === 'string' && /^[A-Za-z]{1,40}$/.test(name)) return name;
  }
  return 'error';
}
