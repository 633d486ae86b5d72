/**
 * A slow upstream answer must stay below the upstream timeout
 */
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { login } from '../multi-instance/cluster.js';
import { until } from '../../helpers/wait.js';
import { scrape, type Scrape } from './prom-text.js';

const RELAY = 'tgbff_relay_duration_seconds';

describe('relay and upstream metrics after real traffic', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ env: { UPSTREAM_TIMEOUT_MS: '2000' } });
  });
  afterAll(() => rig.close());

  const metrics = () => scrape(rig.service.metricsApp);
  const delta = (before: Scrape, after: Scrape, name: string, labels: Record<string, string>) =>
    after.value(name, labels) - before.value(name, labels);

  test('when requests are relayed with various methods and outcomes, then the histogram counts each by method and status class', async () => {
    const agent = await rig.login();
    const before = await metrics();
    expect((await agent.get('/api/echo')).status).toBe(200);
    expect((await agent.get('/api/version')).status).toBe(200);
    expect((await agent.post('/api/query/social/friends').send({ person: 'alice' })).status).toBe(200);
    expect((await agent.get('/api/graph/social/vertices/NoSuchType')).status).toBe(400);
    expect((await agent.delete('/api/graph/social/vertices/Person/alice')).status).toBe(403); // refused before any upstream call
    rig.sim.setFaults({ latencyMs: 3500 });
    try {
      expect((await agent.get('/api/echo')).status).toBe(504);
    } finally {
      rig.sim.setFaults({});
    }
    const after = await metrics();

    expect(after.types[RELAY]).toBe('histogram');
    const count = (method: string, status_class: string) =>
      delta(before, after, `${RELAY}_count`, { method, status_class });
    expect({
      get2: count('GET', '2xx'),
      post2: count('POST', '2xx'),
      get4: count('GET', '4xx'),
      get5: count('GET', '5xx'),
      delete4: count('DELETE', '4xx'),
    }).toEqual({ get2: 2, post2: 1, get4: 1, get5: 1, delete4: 0 });
    // A timeout cannot fire early, so the 5xx series holds at least the 1 s bound.
    expect(delta(before, after, `${RELAY}_sum`, { method: 'GET', status_class: '5xx' })).toBeGreaterThanOrEqual(0.99);
    for (const labels of [
      { method: 'GET', status_class: '2xx' },
      { method: 'GET', status_class: '5xx' },
    ]) {
      const buckets = after.text
        .split('\n')
        .filter(
          (l) =>
            l.startsWith(`${RELAY}_bucket{`) &&
            l.includes(`method="${labels.method}"`) &&
            l.includes(`status_class="${labels.status_class}"`),
        )
        .map((l) => Number(l.split(' ').at(-1)));
      expect(buckets.length).toBeGreaterThan(5);
      expect([...buckets].sort((a, b) => a - b)).toEqual(buckets); // cumulative
      expect(after.value(`${RELAY}_bucket`, { ...labels, le: '+Inf' })).toBe(after.value(`${RELAY}_count`, labels));
    }
    expect(delta(before, after, 'tgbff_upstream_errors_total', { kind: 'timeout' })).toBe(1);
    expect(after.types.tgbff_upstream_errors_total).toBe('counter');
  });

  test('when a request is in flight, then the active requests gauge counts it, and drops back when it ends', async () => {
    const active = async (): Promise<number> => (await metrics()).value('tgbff_active_requests');
    // Scrapes arrive on the metrics listener, which the gauge (public requests only) does not count; the
    // answers of the test before have all closed.
    await until('no request in flight', async () => (await active()) === 0);
    // A streamed answer (a chunk every 50 ms, each well inside the upstream timeout) stays in flight until
    // the browser leaves: the test decides when the request ends, not a latency racing the scrape.
    const base = await rig.listen();
    const cookie = await login(base, rig.secret);
    const leave = new AbortController();
    const res = await fetch(`${base}/api/query/social/stream?chunks=10000&delayMs=50&chunkBytes=10`, {
      headers: { 'X-Requested-With': 'XMLHttpRequest', Cookie: cookie },
      signal: leave.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    expect((await reader.read()).done).toBe(false); // the answer is streaming
    // The streaming one alone (the login's answer may close a moment after the client had it).
    await until('the gauge to count the streaming request', async () => (await active()) === 1);
    leave.abort();
    await reader.read().catch(() => undefined);
    await until('the gauge to drop when the request ended', async () => (await active()) === 0);
    expect((await metrics()).types.tgbff_active_requests).toBe('gauge');
  });

  test('when the data server is gone, then relayed requests count as unavailable upstream errors and 5xx', async () => {
    const agent = await rig.login();
    const before = await metrics();
    await rig.sim.close();
    const res = await agent.get('/api/echo');
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('upstream_unavailable');
    const after = await metrics();
    expect(delta(before, after, 'tgbff_upstream_errors_total', { kind: 'unavailable' })).toBe(1);
    expect(delta(before, after, 'tgbff_upstream_errors_total', { kind: 'timeout' })).toBe(0);
    expect(delta(before, after, `${RELAY}_count`, { method: 'GET', status_class: '5xx' })).toBe(1);
  });

  test('then the default process and Node.js metrics are exposed next to the service ones', async () => {
    const m = await metrics();
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'process_start_time_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_version_info',
    ]) {
      expect({ name, present: m.has(name) }).toEqual({ name, present: true });
    }
    expect(m.types.tgbff_redis_errors_total).toBe('counter');
    expect(m.types.tgbff_lease_waits_total).toBe('counter');
  });
});
