/**
 * Past OVERLOAD_MAX_IN_FLIGHT a request is refused at once with 503 overloaded (issue 46), before any work
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { CSRF, startRig, type Rig } from '../../helpers/app-rig.js';
import { until } from '../../helpers/wait.js';

/** A limit two held requests reach: the third request in flight is one too many. */
const MAX_IN_FLIGHT = 2;

describe('overload protection (in-flight limit)', () => {
  let rig: Rig;
  let base: string;
  let cookie: string;
  const held: AbortController[] = [];
  const metric = async (name: string, labels = ''): Promise<number> => {
    const text = await rig.service.metrics.registry.metrics();
    const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
    return line === undefined ? 0 : Number(line.split(' ')[1]);
  };
  const get = (path: string) =>
    fetch(`${base}${path}`, { headers: { ...CSRF, cookie }, signal: AbortSignal.timeout(15_000) });

  beforeAll(async () => {
    rig = await startRig({
      label: 'overload',
      // The event-loop signal is the unit test's; here only the count decides.
      env: { OVERLOAD_MAX_IN_FLIGHT: String(MAX_IN_FLIGHT), OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' },
    });
    base = await rig.listen();
    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { ...CSRF, 'content-type': 'application/json' },
      body: JSON.stringify({ secret: rig.secret, graph: 'social' }),
    });
    expect(login.status).toBe(200);
    cookie = (login.headers.getSetCookie()[0] as string).split(';')[0] as string;
  });

  afterAll(async () => {
    for (const c of held) c.abort();
    await rig?.close();
  });

  test('when requests in flight pass the limit, then new ones get 503 overloaded with Retry-After at once, probes still answer, and it recovers when they end', async () => {
    // Two requests the simulator holds for a minute (the attacker's, or just slow queries), until aborted.
    for (let i = 0; i < MAX_IN_FLIGHT; i++) {
      const c = new AbortController();
      held.push(c);
      fetch(`${base}/api/echo?sleep=60`, { headers: { ...CSRF, cookie }, signal: c.signal }).catch(() => undefined);
    }
    // The set-up holds: both reached the data server, so both are in flight.
    await until('both held requests at the simulator', () => (rig.sim.counts()['GET /echo'] ?? 0) >= MAX_IN_FLIGHT);
    const echoesBefore = rig.sim.counts()['GET /echo'];
    const loadsBefore = await metric('tgbff_session_cache_lookups_total', '{result="hit"}');

    const refused = await get('/api/echo');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({
      error: { code: 'overloaded', message: 'This instance is overloaded; try again shortly' },
    });
    // Every route, not only the relay: /auth too.
    expect((await get('/auth/session')).status).toBe(503);
    // Refused before any work: the data server saw no new request, no session was loaded.
    expect(rig.sim.counts()['GET /echo']).toBe(echoesBefore);
    expect(await metric('tgbff_session_cache_lookups_total', '{result="hit"}')).toBe(loadsBefore);
    expect(await metric('tgbff_overload_refusals_total', '{reason="in_flight"}')).toBe(2);

    // A balancer can still see the instance alive, and that it should steer away.
    expect((await get('/healthz')).status).toBe(200);
    const ready = await get('/readyz');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'not_ready', reason: 'overloaded', overload: 'in_flight' });

    // Clients that give up (abort) leave no count behind: the instance serves again.
    for (const c of held.splice(0)) c.abort();
    await until('the held requests to close', async () => (await metric('tgbff_active_requests')) === 0);
    expect((await get('/api/echo')).status).toBe(200);
    expect((await get('/readyz')).status).toBe(200);
    expect(rig.logs()).toContain('overloaded: refusing requests with 503 overloaded');
  });

  test('when one client sends many requests at once past the limit, then the excess is refused and none is left counted', async () => {
    const answers = await Promise.all(Array.from({ length: 30 }, () => get('/api/echo?sleep=0.2')));
    const statuses = answers.map((a) => a.status);
    await Promise.all(answers.map((a) => a.arrayBuffer()));
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    await until('every request to close', async () => (await metric('tgbff_active_requests')) === 0);
    expect((await get('/api/echo')).status).toBe(200);
  });
});
