import { rawRequest } from '../../helpers/raw-request.js';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { scrape, type Scrape } from './prom-text.js';

const H = 'tgbff_http_request_duration_seconds';

describe('the request histogram (tgbff_http_request_duration_seconds)', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ label: 'reqhist' });
  });
  afterAll(() => rig.close());

  const count = (s: Scrape, route: string, method: string, status_class: string) =>
    s.value(`${H}_count`, { route, method, status_class });

  test('when requests of every kind are answered, then each is counted once under its route pattern, method and status class', async () => {
    const agent = await rig.login();
    const before = await scrape(rig.service.metricsApp);
    expect((await agent.get('/api/echo')).status).toBe(200);
    expect((await agent.get('/api/graph/social/vertices/Person/alice')).status).toBe(200);
    expect((await rig.agent().get('/api/echo')).status).toBe(401);
    expect((await rig.agent().post('/auth/login').send({ secret: 'wrong-one' })).status).toBe(401);
    expect((await rig.agent().get('/healthz')).status).toBe(200);
    expect((await rig.agent().get('/no/such/path/4711')).status).toBe(404);
    const after = await scrape(rig.service.metricsApp);
    const delta = (route: string, method: string, cls: string) =>
      count(after, route, method, cls) - count(before, route, method, cls);
    expect({
      relayOk: delta('/api/*', 'GET', '2xx'),
      relayAnon: delta('/api/*', 'GET', '4xx'),
      loginRefused: delta('/auth/login', 'POST', '4xx'),
      health: delta('/healthz', 'GET', '2xx'),
      unmatched: delta('other', 'GET', '4xx'),
    }).toEqual({ relayOk: 2, relayAnon: 1, loginRefused: 1, health: 1, unmatched: 1 });
    expect(after.types[H]).toBe('histogram');
  });

  test('when a client sends odd methods and random paths, then no label value is the client’s: they count as other', async () => {
    const url = await rig.listen();
    const before = await scrape(rig.service.metricsApp);
    // Methods node's parser knows but no route serves (anything else never reaches the service).
    const odd = ['PROPFIND', 'MKCOL', 'PURGE', 'LINK', 'SEARCH'];
    for (const [i, method] of odd.entries()) {
      const answer = await rawRequest(url, `/coffee-${i}-x`, {
        method,
        headers: { 'x-requested-with': 'XMLHttpRequest' },
      });
      expect({ method, status: answer.status }).toEqual({ method, status: 404 });
    }
    for (let i = 0; i < 5; i++) expect((await rig.agent().get(`/random-${i}-path`)).status).toBe(404);
    const after = await scrape(rig.service.metricsApp);
    expect(after.text).not.toMatch(/coffee|random-|PROPFIND|MKCOL|PURGE|LINK|SEARCH/);
    expect(count(after, 'other', 'other', '4xx') - count(before, 'other', 'other', '4xx')).toBe(odd.length);
    const routes = new Set(after.text.match(new RegExp(`^${H}_count\\{[^}]*route="([^"]*)"`, 'gm')) ?? []);
    for (const line of routes) expect(line).toMatch(/route="(\/[a-z/*-]*|other)"/);
  });
});
