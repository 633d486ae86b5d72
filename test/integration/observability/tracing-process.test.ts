import { Redis } from 'ioredis';
import supertest from 'supertest';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle } from '../../../src/simulator/types.js';
import { CSRF } from '../../helpers/app-rig.js';
import { sidOf } from '../../helpers/cookies.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../helpers/otlp-receiver.js';
import { deleteKeysWithPrefix, uniquePrefix } from '../../helpers/redis-prefix.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { elapse, until } from '../../helpers/wait.js';
import { processLogLines } from './log-lines.js';

const SERVER = 2;
const CLIENT = 3;
const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_PARENT = `00-${CLIENT_TRACE}-00f067aa0ba902b7-01`;
/** OTEL_BSP_SCHEDULE_DELAY of every service here: how long a span waits in its batch before it is sent. */
const BATCH_DELAY_MS = 100;

/**
 * OpenTelemetry in the real service process (dist/main.js), exporting OTLP/HTTP to a receiver stand-in on
 * loopback, against the simulator (which records the headers TigerGraph got) and the shared Redis.
 */
describe('OpenTelemetry traces from a service process', () => {
  let sim: SimulatorHandle;
  let receiver: OtlpReceiver;
  let secret: string;
  let redis: Redis;
  const prefixes: string[] = [];
  const services: ServiceProcess[] = [];

  beforeAll(async () => {
    sim = await startSimulator({});
    secret = sim.createSecret({ alias: 'otel_test' }).value;
    receiver = await startOtlpReceiver();
    redis = new Redis('redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    for (const svc of services) await svc.kill();
    for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
    redis.disconnect();
    await receiver.close();
    await sim.close();
  });

  async function start(extra: Record<string, string>): Promise<ServiceProcess> {
    const prefix = uniquePrefix('otel');
    prefixes.push(prefix);
    const svc = await startServiceProcess({
      NODE_ENV: 'test',
      TG_RESTPP_URL: sim.restppUrl,
      TG_GSQL_URL: sim.gsqlUrl,
      TG_VERSION: sim.version,
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_PREFIX: prefix,
      COOKIE_SECURE: 'false',
      LOG_FLUSH_MS: '0',
      OTEL_BSP_SCHEDULE_DELAY: String(BATCH_DELAY_MS),
      ...extra,
    });
    services.push(svc);
    return svc;
  }

  const spansOf = (traceId: string) => receiver.spans().filter((s) => s.traceId === traceId);
  /** The access line of the request that sent `id` as its own X-Request-Id (its `clientRequestId`). */
  const accessLine = (svc: ServiceProcess, id: string) =>
    // stdout's JSON lines (stderr's start-up banner for humans is mixed into output()).
    processLogLines(svc.output()).find((l) => l.msg === 'request' && l.clientRequestId === id);

  /** The trace of the request that sent this id, once its spans (at least `count`) arrived. */
  async function traceOf(svc: ServiceProcess, id: string, count: number): Promise<ReceivedSpan[]> {
    const line = await until(`the access line of ${id}`, () => accessLine(svc, id));
    expect(line.traceId).toMatch(/^[0-9a-f]{32}$/);
    const traceId = line.traceId as string;
    return until(`${count} span(s) of trace ${traceId}`, () => {
      const spans = spansOf(traceId);
      return spans.length >= count ? spans : null;
    });
  }

  test('when a session logs in and relays a query, then spans arrive with the right parents, TigerGraph gets the upstream span as parent, and no secret is in any of them', async () => {
    const svc = await start({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'bff-under-test' });
    const agent = supertest.agent(svc.url).set(CSRF);
    const login = await agent.post('/auth/login').set('X-Request-Id', 'otel-login').send({ secret, graph: 'social' });
    expect(login.status).toBe(200);
    const cookie = login.headers['set-cookie']![0]!;
    // A client's own traceparent is not trusted by default: a new trace, and TigerGraph never sees it.
    const query = await agent
      .get('/api/query/social/hello?name=Ann')
      .set('X-Request-Id', 'otel-query')
      .set('traceparent', CLIENT_PARENT);
    expect(query.status).toBe(200);

    const loginTrace = await traceOf(svc, 'otel-login', 2);
    const loginSpan = loginTrace.find((s) => s.kind === SERVER)!;
    expect(loginSpan).toMatchObject({
      name: 'POST /auth/login',
      parentSpanId: '',
      attributes: expect.objectContaining({ 'http.route': '/auth/login', 'http.response.status_code': 200 }),
      resource: expect.objectContaining({ 'service.name': 'bff-under-test' }),
    });
    expect(loginTrace.find((s) => s.name === 'token.mint')).toMatchObject({
      kind: CLIENT,
      parentSpanId: loginSpan.spanId,
    });

    const queryTrace = await traceOf(svc, 'otel-query', 3);
    const request = queryTrace.find((s) => s.kind === SERVER)!;
    expect(request.traceId).not.toBe(CLIENT_TRACE);
    expect(request).toMatchObject({
      name: 'GET /api/*',
      parentSpanId: '',
      attributes: expect.objectContaining({
        'http.route': '/api/*',
        'http.request.method': 'GET',
        'http.response.status_code': 200,
        'tgbff.login': 'secret',
        'tgbff.graph': 'social',
        'tgbff.query': 'hello',
        'tgbff.session': expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
      }),
    });
    const load = queryTrace.find((s) => s.name === 'session.load');
    const upstream = queryTrace.find((s) => s.name === 'tigergraph.request');
    expect(load?.parentSpanId).toBe(request.spanId);
    expect(upstream).toMatchObject({
      kind: CLIENT,
      parentSpanId: request.spanId,
      attributes: expect.objectContaining({ 'http.response.status_code': 200 }),
    });
    // The access line of the same request carries the trace id and the principal.
    expect(accessLine(svc, 'otel-query')).toMatchObject({ traceId: request.traceId, login: 'secret', query: 'hello' });

    const seen = sim
      .seen()
      .filter((r) => r.path === '/query/social/hello')
      .at(-1)!;
    expect(seen.headers.traceparent).toBe(`00-${request.traceId}-${upstream!.spanId}-01`);

    expect(receiver.refused()).toEqual([]);
    const exported = receiver.raw();
    const tokens = sim.tokens().map((t) => t.token);
    expect(tokens.length).toBeGreaterThan(0);
    for (const needle of [secret, sidOf(cookie), cookie.split(';')[0]!, ...tokens, 'name=Ann', CLIENT_TRACE])
      expect({ leaked: exported.includes(needle) }).toEqual({ leaked: false });
  });

  test('when TRACE_TRUST_PARENT is on, then the request span continues the caller’s trace', async () => {
    const svc = await start({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, TRACE_TRUST_PARENT: 'true' });
    const res = await supertest(svc.url)
      .get('/healthz')
      .set('X-Request-Id', 'otel-trusted')
      .set('traceparent', CLIENT_PARENT);
    expect(res.status).toBe(200);
    const [span] = await traceOf(svc, 'otel-trusted', 1);
    expect(span).toMatchObject({ traceId: CLIENT_TRACE, parentSpanId: '00f067aa0ba902b7', name: 'GET /healthz' });
  });

  test('when no OTLP endpoint is set, then nothing is exported, lines carry no trace id and TigerGraph gets no traceparent', async () => {
    const before = receiver.spans().length;
    const svc = await start({});
    const agent = supertest.agent(svc.url).set(CSRF);
    expect((await agent.post('/auth/login').send({ secret, graph: 'social' })).status).toBe(200);
    expect(
      (await agent.get('/api/echo').set('X-Request-Id', 'otel-off').set('traceparent', CLIENT_PARENT)).status,
    ).toBe(200);
    const line = await until('the access line of otel-off', () => accessLine(svc, 'otel-off'));
    expect(line).not.toHaveProperty('traceId');
    expect(
      sim
        .seen()
        .filter((r) => r.path === '/echo')
        .at(-1)!.headers.traceparent,
    ).toBeUndefined();
    // Nothing arrives for a while: anything this one sent would have left its batch after BATCH_DELAY_MS.
    // Ten batch delays and at least a second, for a process that waits for the CPU.
    await elapse(Math.max(1000, 10 * BATCH_DELAY_MS), 'no span may arrive from a service without an endpoint');
    expect(receiver.spans().length).toBe(before);
  });
});
