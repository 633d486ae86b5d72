import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { startTestIdp, type TestIdp } from '../../helpers/oidc-provider.js';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { CSRF, REDIRECT_URI, idpLogin, ssoLogin, startLogin } from './sso-rig.js';

/**
 * A credential map with an IdP that issues opaque access tokens and puts the groups in the ID token (Entra ID
 * without an API of its own, Auth0 without an audience, Google): the service runs without OIDC_AUDIENCE,
 * asks for no resource, and reads the person and the claims from the ID token at login and at each refresh.
 */
describe('credential map without OIDC_AUDIENCE, opaque IdP access tokens', () => {
  let idp: TestIdp;
  let rig: Rig;
  let dir: string;
  let offset = 0;
  const now = () => Date.now() + offset;
  const groups = new Map<string, string[]>();
  const TTL = 120;

  beforeAll(async () => {
    idp = await startTestIdp({
      redirectUris: [REDIRECT_URI],
      accessTokenTtl: TTL,
      opaqueAccessTokens: true,
      accessClaimsOf: (id) => (groups.has(id) ? { groups: groups.get(id) } : undefined),
    });
    dir = mkdtempSync(path.join(tmpdir(), 'tgbff-map-opaque-'));
    const secretFile = path.join(dir, 'tg-analysts');
    writeFileSync(secretFile, 'not-yet\n');
    const mapFile = path.join(dir, 'map.yaml');
    writeFileSync(
      mapFile,
      `claim: groups\nrules:\n  - name: analysts\n    match: [graph-analysts]\n    graphs: [social]\n    credential: { secretFile: ${secretFile} }\n`,
    );
    rig = await startRig({
      now,
      label: 'map-opaque',
      sim: { version: '3.9.3' },
      env: {
        OIDC_ISSUER: idp.issuer,
        OIDC_CLIENT_ID: idp.clientId,
        OIDC_CLIENT_SECRET: idp.clientSecret,
        OIDC_REDIRECT_URI: REDIRECT_URI,
        OIDC_REFRESH_BEFORE: '30',
        OIDC_CREDENTIAL_MAP: mapFile,
      },
    });
    writeFileSync(secretFile, `${rig.secret}\n`);
  });

  afterAll(async () => {
    await rig?.close();
    await idp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const app = () => rig.service.app;
  const relay = (cookie: string) => supertest(app()).get('/api/echo').set(CSRF).set('Cookie', cookie);

  test('when an analyst signs in, then no resource is asked for, the IdP token is opaque, and the session relays the rule token', async () => {
    groups.set('ana', ['graph-analysts']);
    const { authorizeUrl } = await startLogin(app());
    expect(new URL(authorizeUrl).searchParams.has('resource')).toBe(false);
    const opaqueBefore = idp.opaqueAccessTokens();
    const { cookie } = await ssoLogin(app(), 'ana');
    // The set-up holds: what the IdP issued for this login is an opaque token, not a JWT.
    expect(idp.opaqueAccessTokens()).toBeGreaterThan(opaqueBefore);
    expect((await relay(cookie)).status).toBe(200);
    const bearer = rig.sim
      .seen()
      .filter((r) => r.path.endsWith('/echo'))
      .at(-1)!.headers.authorization;
    expect(rig.sim.tokens().map((t) => `Bearer ${t.token}`)).toContain(bearer);
    const session = await supertest(app()).get('/auth/session').set(CSRF).set('Cookie', cookie);
    expect(session.body).toMatchObject({
      login: 'oidc',
      sub: 'ana',
      name: 'User ana',
      rule: 'analysts',
      graph: 'social',
    });
  });

  test('when a person is in no group of the map, then 403 sso_not_permitted from the ID token claims', async () => {
    groups.set('outsider', ['other-team']);
    const { preCookie, authorizeUrl } = await startLogin(app());
    const back = await idpLogin(authorizeUrl, 'outsider');
    const res = await supertest(app())
      .get(`/auth/oidc/callback${back.search}`)
      .set('Cookie', preCookie)
      .set('Accept', 'application/json');
    expect([res.status, res.body.error?.code]).toEqual([403, 'sso_not_permitted']);
  });

  test('when a person leaves the group, then the refresh reads the new ID token and ends the session', async () => {
    groups.set('leaver', ['graph-analysts']);
    const { cookie } = await ssoLogin(app(), 'leaver');
    expect((await relay(cookie)).status).toBe(200);
    groups.set('leaver', ['other-team']);
    const refreshesBefore = idp.refreshGrants();
    offset += (TTL - 20) * 1000; // inside the 30 s refresh margin of the IdP access token
    const res = await relay(cookie);
    expect(idp.refreshGrants()).toBeGreaterThan(refreshesBefore);
    expect([res.status, res.body.error?.code]).toEqual([401, 'session_expired']);
    expect(rig.audit()).toMatch(/"event":"session.ended","reason":"idp_refused"[^\n]*"rule":"analysts"/);
  });
});
