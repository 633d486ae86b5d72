import type { IncomingHttpHeaders } from 'node:http';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-node';
import { failureCode, type TraceSpan, type Tracing, type TracingSettings } from './tracing.js';

function samplerOf(settings: TracingSettings): Sampler {
  const ratio = () => new TraceIdRatioBasedSampler(settings.samplerRatio);
  switch (settings.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio() });
  }
}

class OtelSpan implements TraceSpan {
  constructor(readonly span: Span) {}
  get traceId(): string {
    return this.span.spanContext().traceId;
  }
  traceparent(): string {
    const sc = this.span.spanContext();
    return `00-${sc.traceId}-${sc.spanId}-0${sc.traceFlags & 1}`;
  }
  set(name: string, value: string | number | boolean): void {
    this.span.setAttribute(name, value);
  }
  rename(name: string): void {
    this.span.updateName(name);
  }
  fail(code: string): void {
    this.span.setAttribute('error.type', code);
    this.span.setStatus({ code: SpanStatusCode.ERROR });
  }
  end(): void {
    this.span.end();
  }
}

const KINDS = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT } as const;

/**
 * OpenTelemetry's tracer provider (sdk-trace-node: AsyncLocalStorage context, W3C propagation) exporting
 * OTLP/HTTP in batches. Registered globally, as the API requires for context to flow; one per process.
 */
export function createOtelTracing(settings: TracingSettings): Tracing {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      'service.name': settings.serviceName,
      ...(settings.serviceVersion !== undefined && { 'service.version': settings.serviceVersion }),
    }),
    sampler: samplerOf(settings),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.tracesUrl }))],
  });
  provider.register();
  const tracer: Tracer = provider.getTracer('tigergraph-bff');
  const parentOf = (headers: IncomingHttpHeaders): Context =>
    settings.trustParent && headers.traceparent !== undefined
      ? propagation.extract(ROOT_CONTEXT, headers)
      : ROOT_CONTEXT;

  return {
    startRequest(method, headers) {
      return new OtelSpan(tracer.startSpan(method, { kind: SpanKind.SERVER }, parentOf(headers)));
    },
    within(span, fn) {
      return context.with(trace.setSpan(context.active(), (span as OtelSpan).span), fn);
    },
    inSpan(name, fn, kind = 'internal') {
      return tracer.startActiveSpan(name, { kind: KINDS[kind] }, async (raw) => {
        const span = new OtelSpan(raw);
        try {
          return await fn(span);
        } catch (err) {
          span.fail(failureCode(err));
          throw err;
        } finally {
          raw.end();
        }
      });
    },
    async shutdown() {
      await provider.shutdown();
    },
  };
}
