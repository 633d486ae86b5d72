import type { TracingSettings } from '../observability/tracing.js';
import { httpUrlWithoutCredentials, Invalid } from './fields.js';

export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/** An OTLP/HTTP URL: http(s), no credentials (OTEL_EXPORTER_OTLP_HEADERS carries those, read by the exporter). */
export function otlpUrl(raw: string): string {
  return httpUrlWithoutCredentials(raw, 'must be an http(s) URL').href;
}

/** A sampling ratio, 0 to 1. */
export function ratio(raw: string): number {
  const n = /^(0|1|0?\.\d+|1\.0*)$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 0 && n <= 1)) throw new Invalid('must be a number from 0 to 1');
  return n;
}

export interface TracingValues {
  OTEL_SDK_DISABLED: boolean;
  OTEL_TRACES_EXPORTER: 'otlp' | 'none';
  OTEL_EXPORTER_OTLP_ENDPOINT: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: string | undefined;
  OTEL_SERVICE_NAME: string;
  OTEL_TRACES_SAMPLER: TracingSettings['sampler'];
  OTEL_TRACES_SAMPLER_ARG: number;
  TRACE_TRUST_PARENT: boolean;
}

/**
 * Tracing is on when an OTLP endpoint is set, and neither OTEL_SDK_DISABLED nor OTEL_TRACES_EXPORTER=none
 * says otherwise (the specification's meanings). The signal-specific endpoint is used as given; the
 * general one gets `v1/traces` appended, as the specification says.
 */
export function tracingFrom(v: TracingValues): TracingSettings | null {
  if (v.OTEL_SDK_DISABLED || v.OTEL_TRACES_EXPORTER === 'none') return null;
  const base = v.OTEL_EXPORTER_OTLP_ENDPOINT;
  const tracesUrl =
    v.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (base === undefined ? undefined : `${base.endsWith('/') ? base : `${base}/`}v1/traces`);
  if (tracesUrl === undefined) return null;
  return {
    tracesUrl,
    serviceName: v.OTEL_SERVICE_NAME,
    sampler: v.OTEL_TRACES_SAMPLER,
    samplerRatio: v.OTEL_TRACES_SAMPLER_ARG,
    trustParent: v.TRACE_TRUST_PARENT,
  };
}
