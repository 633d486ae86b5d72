import { loadConfig } from '../../../src/config.js';

const base = { NODE_ENV: 'test' };

describe('tracing settings (OTEL_*)', () => {
  it('when no OTLP endpoint is set, then tracing is off', () => {
    expect(loadConfig(base).tracing).toBeNull();
    expect(loadConfig({ ...base, OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }).tracing).toBeNull();
  });

  it('when the base endpoint is set, then traces go to its /v1/traces with the defaults', () => {
    expect(loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).toEqual({
      tracesUrl: 'http://collector:4318/v1/traces',
      serviceName: 'tigergraph-bff',
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
      trustParent: false,
    });
    expect(loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c.example/otlp/' }).tracing?.tracesUrl).toBe(
      'https://c.example/otlp/v1/traces',
    );
  });

  it('when the traces endpoint is set, then it is used as given, before the base one', () => {
    const c = loadConfig({
      ...base,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/custom',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      TRACE_TRUST_PARENT: 'true',
    });
    expect(c.tracing).toMatchObject({
      tracesUrl: 'http://b:4318/custom',
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
      trustParent: true,
    });
  });

  it('when OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none, then tracing is off even with an endpoint', () => {
    const on = { ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318' };
    expect(loadConfig({ ...on, OTEL_SDK_DISABLED: 'true' }).tracing).toBeNull();
    expect(loadConfig({ ...on, OTEL_TRACES_EXPORTER: 'none' }).tracing).toBeNull();
  });

  it('when values are wrong, then the start fails naming each key, never the value', () => {
    let message = '';
    try {
      loadConfig({
        ...base,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://user:hunter2@collector:4318',
        OTEL_TRACES_SAMPLER: 'sometimes',
        OTEL_TRACES_SAMPLER_ARG: '1.5',
        OTEL_TRACES_EXPORTER: 'zipkin',
      });
    } catch (err) {
      message = (err as Error).message;
    }
    for (const key of [
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OTEL_TRACES_SAMPLER',
      'OTEL_TRACES_SAMPLER_ARG',
      'OTEL_TRACES_EXPORTER',
    ])
      expect(message).toContain(key);
    expect(message).not.toContain('hunter2');
  });

  it('when RELAY_FORWARD_HEADERS names traceparent, then the start fails: trace context is the service’s own', () => {
    expect(() => loadConfig({ ...base, RELAY_FORWARD_HEADERS: 'traceparent' })).toThrow(/RELAY_FORWARD_HEADERS/);
  });
});
