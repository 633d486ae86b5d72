import { startRig, type Rig } from '../../helpers/app-rig.js';
import { login } from '../multi-instance/cluster.js';
import { openStream } from '../multi-instance/stream-client.js';

// GSQL-TIMEOUT (ms) and RESPONSE-LIMIT (bytes), TigerGraph's per-request query knobs, are capped on their
// way upstream, defaulted when absent, and the relay caps the answer it streams back.
describe('query guardrails on the relay', () => {
  let rig: Rig;
  let base: string;
  let cookie: string;
  // Over the demo graph's Person listing (778 bytes), under TigerGraph's timeout error (about 330).
  const MAX_BYTES = 512;
  beforeAll(async () => {
    rig = await startRig({
      label: 'guardrails',
      env: {
        QUERY_TIMEOUT_MAX_MS: '2000',
        QUERY_TIMEOUT_DEFAULT_MS: '1500',
        RELAY_MAX_RESPONSE_BYTES: String(MAX_BYTES),
        UPSTREAM_TIMEOUT_MS: '5000',
      },
    });
    base = await rig.listen();
    cookie = await login(base, rig.secret);
  });
  afterAll(() => rig.close());

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { headers: { 'X-Requested-With': 'XMLHttpRequest', Cookie: cookie, ...headers } });
  const upstreamHeaders = (from: number, path: string) => {
    const seen = rig.sim
      .seen()
      .slice(from)
      .filter((r) => r.path === path);
    expect(seen).toHaveLength(1);
    return seen[0]!.headers;
  };

  test('when the browser sends no GSQL-TIMEOUT or RESPONSE-LIMIT, then TigerGraph gets the defaults', async () => {
    const from = rig.sim.seen().length;
    expect((await get('/api/query/social/hello')).status).toBe(200);
    const headers = upstreamHeaders(from, '/query/social/hello');
    expect([headers['gsql-timeout'], headers['response-limit']]).toEqual(['1500', String(MAX_BYTES)]);
  });

  test('when the browser asks for more than the caps, then TigerGraph gets the caps; less passes as asked', async () => {
    let from = rig.sim.seen().length;
    expect(
      (await get('/api/query/social/hello', { 'GSQL-TIMEOUT': '7200000', 'RESPONSE-LIMIT': '1000000000' })).status,
    ).toBe(200);
    let headers = upstreamHeaders(from, '/query/social/hello');
    expect([headers['gsql-timeout'], headers['response-limit']]).toEqual(['2000', String(MAX_BYTES)]);
    from = rig.sim.seen().length;
    expect((await get('/api/query/social/hello', { 'gsql-timeout': '700', 'response-limit': '300' })).status).toBe(200);
    headers = upstreamHeaders(from, '/query/social/hello');
    expect([headers['gsql-timeout'], headers['response-limit']]).toEqual(['700', '300']);
  });

  test('when a header is not a whole positive number, then 400 invalid_request names it and nothing goes upstream', async () => {
    const from = rig.sim.seen().length;
    for (const [name, value] of [
      ['GSQL-TIMEOUT', '0'],
      ['GSQL-TIMEOUT', '10s'],
      ['RESPONSE-LIMIT', '-1'],
    ] as const) {
      const res = await get('/api/query/social/hello', { [name]: value });
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect([res.status, body.error.code]).toEqual([400, 'invalid_request']);
      expect(body.error.message).toMatch(new RegExp(`^${name}: must be a whole number`));
    }
    expect(rig.sim.seen().slice(from)).toEqual([]);
  });

  test("when a query runs past the capped GSQL-TIMEOUT, then the browser gets TigerGraph's timeout error at the cap, not later", async () => {
    // The query wants 30 s, longer than the relay's 5 s deadline: only TigerGraph stopping it at the 2 s cap
    // answers REST-3000; running on, it would have met the relay's deadline (504 upstream_timeout) first.
    // That order, not a measured time, is what shows the cap applied.
    const res = await get('/api/query/social/sleep?ms=30000', { 'GSQL-TIMEOUT': '60000' });
    const body = (await res.json()) as { error: boolean; code: string; message: string };
    expect([res.status, body.error, body.code]).toEqual([504, true, 'REST-3000']);
    expect(body.message).toMatch(/exceeded the query timeout threshold \(2 seconds\)/);
  });

  // RESTPP's built-in vertex, edge and loading-job endpoints also take `timeout=<seconds>` in the query string
  // (docs/tigergraph-wire.md §7): capped like the header, at QUERY_TIMEOUT_MAX_MS (2000 here) = 2 s.
  const upstreamQuery = (from: number, path: string) => {
    const seen = rig.sim
      .seen()
      .slice(from)
      .filter((r) => r.path === path);
    expect(seen).toHaveLength(1);
    return seen[0]!.query;
  };

  test("when the browser asks a built-in endpoint for more than the cap with timeout=, then TigerGraph gets the cap in seconds; less, 0 and a query's own timeout pass as sent", async () => {
    const listing = '/graph/social/vertices/Person';
    for (const [asked, sent] of [
      ['limit=1&timeout=3600', 'limit=1&timeout=2'],
      ['Timeout=0900&limit=1', 'Timeout=2&limit=1'],
      ['%74imeout=99&limit=1', '%74imeout=2&limit=1'],
      ['limit=1&timeout=1', 'limit=1&timeout=1'],
      ['limit=1&timeout=0', 'limit=1&timeout=0'],
      ['limit=1', 'limit=1'],
    ] as const) {
      const from = rig.sim.seen().length;
      expect((await get(`/api${listing}?${asked}`)).status).toBe(200);
      expect({ asked, upstream: upstreamQuery(from, listing) }).toEqual({ asked, upstream: sent });
    }
    // An installed query reads no such parameter: `timeout` there is the query's own, passed as sent.
    const from = rig.sim.seen().length;
    expect((await get('/api/query/social/hello?timeout=3600')).status).toBe(200);
    expect(upstreamQuery(from, '/query/social/hello')).toBe('timeout=3600');
  });

  test('when timeout= is not a whole number of seconds, then 400 invalid_request names it and nothing goes upstream', async () => {
    const from = rig.sim.seen().length;
    for (const asked of ['timeout=soon', 'timeout=-1', 'timeout=1.5', 'timeout', 'limit=1&timeout=1e9']) {
      const res = await get(`/api/graph/social/vertices/Person?${asked}`);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect({ asked, status: res.status, code: body.error.code }).toEqual({
        asked,
        status: 400,
        code: 'invalid_request',
      });
      expect(body.error.message).toBe('timeout: must be a whole number of seconds');
    }
    expect(rig.sim.seen().slice(from)).toEqual([]);
  });

  test("when a built-in listing runs past the capped timeout=, then the browser gets TigerGraph's timeout error at the cap, not the relay's deadline", async () => {
    // The listing takes 30 s (the simulator's latency), longer than the relay's 5 s deadline: only TigerGraph
    // stopping it at the 2 s cap answers REST-3000; with timeout=60 passed as sent it would have met the
    // relay's deadline (504 upstream_timeout) first. That order, not a measured time, shows the cap applied.
    rig.sim.setFaults({ latencyMs: 30_000 });
    try {
      const res = await get('/api/graph/social/vertices/Person?limit=1&timeout=60');
      const body = (await res.json()) as { error: boolean; code: string; message: string };
      expect([res.status, body.error, body.code]).toEqual([504, true, 'REST-3000']);
      expect(body.message).toMatch(/exceeded the query timeout threshold \(2 seconds\)/);
    } finally {
      rig.sim.setFaults({});
    }
  });

  test('when TigerGraph declares an answer longer than RELAY_MAX_RESPONSE_BYTES, then 502 response_too_large and nothing of it', async () => {
    // Vertex listings are not queries: RESPONSE-LIMIT does not bound them, the relay's cap does.
    const res = await get('/api/graph/social/vertices/Person');
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect([res.status, body.error.code]).toEqual([502, 'response_too_large']);
    expect(body.error.message).toMatch(
      /^The data server's answer \(\d+ bytes\) is larger than this service relays \(512 bytes\)/,
    );
    // The set-up holds: the same listing is 200 when asked without the relay's cap in the way.
    const direct = await fetch(`${rig.restppUrl}/graph/social/vertices/Person`, {
      headers: { Authorization: String(rig.sim.seen().at(-1)!.headers.authorization) },
    });
    expect([direct.status, Number(direct.headers.get('content-length')) > MAX_BYTES]).toEqual([200, true]);
  });

  test('when an answer streams past RELAY_MAX_RESPONSE_BYTES without a length, then the connection is cut: never a complete-looking body', async () => {
    // 20 chunks of 100 bytes: over 2 KB, four times the cap, streamed without Content-Length.
    const stream = openStream(base, '/api/query/social/stream?chunks=20&delayMs=5&chunkBytes=100', cookie);
    const outcome = await stream.done;
    expect(outcome.status).toBe(200);
    expect(outcome.complete).toBe(false);
    expect(outcome.body.length).toBeGreaterThan(0);
    expect(outcome.body.length).toBeLessThan(20 * 100);
    expect(outcome.body.endsWith(']}')).toBe(false);
    expect(rig.logs()).toContain('relay answer cut at RELAY_MAX_RESPONSE_BYTES');
    const metrics = await rig.service.metrics.registry.getSingleMetricAsString('tgbff_upstream_errors_total');
    expect(metrics).toMatch(/kind="too_large"} [1-9]/);
    // The session and the relay carry on.
    expect((await get('/api/echo')).status).toBe(200);
  });

  test('when a small answer streams under the cap, then it arrives whole', async () => {
    const stream = openStream(base, '/api/query/social/stream?chunks=2&delayMs=5&chunkBytes=50', cookie);
    const outcome = await stream.done;
    expect([outcome.status, outcome.complete, outcome.body.endsWith(']}')]).toEqual([200, true, true]);
  });
});

// GSQL-THREAD-LIMIT and GSQL-QueryLocalMemLimitMB size a query's threads and memory (TigerGraph 4.x): off
// unless capped; capped, every relayed request carries them, whatever the browser sent and however spelt.
describe('thread and memory caps on the relay', () => {
  let rig: Rig;
  let base: string;
  let cookie: string;
  beforeAll(async () => {
    rig = await startRig({
      label: 'sizing-caps',
      sim: { version: '4.1.0' },
      env: {
        QUERY_THREAD_LIMIT_MAX: '8',
        QUERY_THREAD_LIMIT_DEFAULT: '2',
        QUERY_MEMORY_LIMIT_MAX_MB: '2048',
      },
    });
    base = await rig.listen();
    cookie = await login(base, rig.secret);
  });
  afterAll(() => rig.close());

  const get = (headers: [string, string][] = []) => {
    const h = new Headers({ 'X-Requested-With': 'XMLHttpRequest', Cookie: cookie });
    for (const [name, value] of headers) h.append(name, value);
    return fetch(`${base}/api/query/social/hello`, { headers: h });
  };
  const sizing = (from: number) => {
    const seen = rig.sim
      .seen()
      .slice(from)
      .filter((r) => r.path === '/query/social/hello');
    expect(seen).toHaveLength(1);
    return [seen[0]!.headers['gsql-thread-limit'], seen[0]!.headers['gsql-querylocalmemlimitmb']];
  };

  test('when the browser sends neither, then TigerGraph gets the thread default and the memory cap', async () => {
    const from = rig.sim.seen().length;
    expect((await get()).status).toBe(200);
    expect(sizing(from)).toEqual(['2', '2048']);
  });

  test.each([
    ['GSQL-THREAD-LIMIT', 'GSQL-QueryLocalMemLimitMB'],
    ['gsql-thread-limit', 'gsql-querylocalmemlimitmb'],
    ['Gsql-Thread-Limit', 'GSQL-QUERYLOCALMEMLIMITMB'],
  ])('when the browser asks for more as %s and %s, then TigerGraph gets the caps; less passes', async (t, m) => {
    let from = rig.sim.seen().length;
    expect(
      (
        await get([
          [t, '4096'],
          [m, '99999999'],
        ])
      ).status,
    ).toBe(200);
    expect(sizing(from)).toEqual(['8', '2048']);
    from = rig.sim.seen().length;
    expect(
      (
        await get([
          [t, ' 3 '],
          [m, '256'],
        ])
      ).status,
    ).toBe(200);
    expect(sizing(from)).toEqual(['3', '256']);
  });

  test('when a value is malformed or sent twice, then 400 invalid_request names the header and nothing goes upstream', async () => {
    const from = rig.sim.seen().length;
    for (const [headers, name] of [
      [[['GSQL-THREAD-LIMIT', '0']], 'GSQL-THREAD-LIMIT'],
      [
        [
          ['GSQL-THREAD-LIMIT', '2'],
          ['GSQL-THREAD-LIMIT', '64'],
        ],
        'GSQL-THREAD-LIMIT',
      ],
      [[['GSQL-QueryLocalMemLimitMB', '1GB']], 'GSQL-QueryLocalMemLimitMB'],
      [[['GSQL-QueryLocalMemLimitMB', '1e3']], 'GSQL-QueryLocalMemLimitMB'],
    ] as [[string, string][], string][]) {
      const res = await get(headers);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect([res.status, body.error.code]).toEqual([400, 'invalid_request']);
      expect(body.error.message).toMatch(new RegExp(`^${name}: must be a whole number`));
    }
    expect(rig.sim.seen().slice(from)).toEqual([]);
  });

  test('when RELAY_FORWARD_HEADERS names a sizing header, then the start is refused naming the setting to use', async () => {
    await expect(
      startRig({ label: 'sizing-forward', env: { RELAY_FORWARD_HEADERS: 'x-trace-me,GSQL-Thread-Limit' } }),
    ).rejects.toThrow(/RELAY_FORWARD_HEADERS: .*gsql-thread-limit: set QUERY_THREAD_LIMIT_MAX instead/);
    await expect(startRig({ label: 'sizing-default', env: { QUERY_MEMORY_LIMIT_DEFAULT_MB: '512' } })).rejects.toThrow(
      /QUERY_MEMORY_LIMIT_DEFAULT_MB: needs QUERY_MEMORY_LIMIT_MAX_MB/,
    );
  });
});
