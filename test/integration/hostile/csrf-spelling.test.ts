import { startGuardRig, type GuardRig } from './guard-rig.js';
import { rawRequest } from '../../helpers/raw-request.js';

const CROSS_SITE = { origin: 'https://evil.example', 'content-type': 'application/json' };
const ADMIN = `Basic ${Buffer.from('tigergraph:tigergraph').toString('base64')}`;

/** Every state-changing route the service has (app.ts, auth-routes.ts, admin-routes.ts, the /api lane). */
const ROUTES: Array<{ method: string; path: string; body?: string; admin?: boolean }> = [
  { method: 'POST', path: '/auth/login', body: '{"secret":"whatever","graph":"social"}' },
  { method: 'POST', path: '/auth/logout' },
  { method: 'POST', path: '/admin/secrets', body: '{"graph":"social","alias":"csrf_made"}', admin: true },
  { method: 'DELETE', path: '/admin/secrets/csrf_victim?graph=social', admin: true },
  { method: 'POST', path: '/api/graph/social', body: '{}' },
  { method: 'DELETE', path: '/api/graph/social/vertices/Person/p1' },
  { method: 'GET', path: '/api/echo' },
];

/** The ways one path can be spelled that a router, a proxy or a browser may treat as the same route. */
function spellings(target: string, base: string): string[] {
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  const query = q === -1 ? '' : target.slice(q);
  const [, first = '', ...rest] = path.split('/');
  const tail = rest.join('/');
  const last = rest[rest.length - 1] ?? '';
  const pct = (s: string) => `%${s.charCodeAt(0).toString(16)}${s.slice(1)}`;
  const pctUpper = (s: string) => `%${s.charCodeAt(0).toString(16).toUpperCase()}${s.slice(1)}`;
  const forms = [
    path.toUpperCase(),
    `/${first[0]!.toUpperCase()}${first.slice(1)}/${tail}`,
    `/${first}/${tail.toUpperCase()}`,
    `${path}/`,
    `${path.toUpperCase()}/`,
    `/${pct(first)}/${tail}`,
    `/${pctUpper(first)}/${tail}`,
    `/${first}/${rest.slice(0, -1).concat(pct(last)).join('/')}`,
    `//${first}/${tail}`,
    `/${first}//${tail}`,
    `/${first}/./${tail}`,
    `/${first}/x/../${tail}`,
    `/${first}%2F${tail}`,
    `/${first}/${tail};x`,
    `${base}${path.toUpperCase()}`,
  ];
  return forms.map((f) => `${f}${query}`);
}

describe('CSRF guard against odd spellings (a real service process)', () => {
  let rig: GuardRig;
  beforeAll(async () => {
    rig = await startGuardRig('csrf-spelling', { ADMIN_ROUTES: 'true', ALLOWED_ORIGINS: 'https://app.example.com' });
  });
  afterAll(() => rig?.close());

  test('when a cross-site request without the CSRF header spells a state-changing route oddly, then it is refused or not found, never served, the session lives and upstream sees nothing', async () => {
    rig.sim.createSecret({ alias: 'csrf_victim' });
    const cookie = await rig.login();
    const before = rig.sim.seen().length;
    const served: string[] = [];
    for (const route of ROUTES) {
      for (const target of [route.path, ...spellings(route.path, rig.bff.url)]) {
        const headers = { ...CROSS_SITE, cookie, ...(route.admin && { authorization: ADMIN }) };
        const res = await rawRequest(rig.bff.url, target, { method: route.method, headers, body: route.body });
        const refused =
          (res.status === 403 && res.code === 'csrf_rejected') || (res.status === 404 && res.code === 'not_found');
        if (!refused) served.push(`${route.method} ${target} -> ${res.status} ${res.code ?? res.body.slice(0, 60)}`);
      }
    }
    expect(served).toEqual([]);
    // Nothing reached TigerGraph: no relayed call, no token deleted, no secret created or dropped.
    expect(
      rig.sim
        .seen()
        .slice(before)
        .map((r) => `${r.port} ${r.method} ${r.path}`),
    ).toEqual([]);
    const session = await rawRequest(rig.bff.url, '/auth/session', { headers: { cookie } });
    expect(session.status).toBe(200);
    expect(JSON.parse(session.body)).toMatchObject({ authenticated: true, graph: 'social' });
  });

  test('when the same request comes with the CSRF header from a listed origin and the canonical spelling, then it is served (the guard is not a blanket refusal)', async () => {
    const cookie = await rig.login();
    const headers = { origin: 'https://app.example.com', 'x-requested-with': 'XMLHttpRequest', cookie };
    expect((await rawRequest(rig.bff.url, '/api/echo', { headers })).status).toBe(200);
    const logout = await rawRequest(rig.bff.url, '/auth/logout', { method: 'POST', headers });
    expect(logout.status).toBe(204);
    const session = await rawRequest(rig.bff.url, '/auth/session', { headers: { cookie } });
    expect(session.status).toBe(401);
    expect(session.code).toBe('not_authenticated');
  });

  test('when a state-changing request to an unknown path comes without the header, then it is refused before any route runs', async () => {
    const res = await rawRequest(rig.bff.url, '/elsewhere', { method: 'POST', headers: CROSS_SITE, body: '{}' });
    expect(res.status).toBe(403);
    expect(res.code).toBe('csrf_rejected');
  });
});
