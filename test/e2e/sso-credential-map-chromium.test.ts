import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/observability/logger.js';
import { createService, type Service } from '../../src/service.js';
import { startSimulator } from '../../src/simulator/index.js';
import type { SimulatorHandle } from '../../src/simulator/types.js';
import { chromiumAvailability, launchChromium, type HeadlessChromium } from '../helpers/chromium.js';
import { startTestIdp, type TestIdp } from '../helpers/oidc-provider.js';
import { freePort } from '../helpers/ports.js';
import { deleteKeysWithPrefix, uniquePrefix } from '../helpers/redis-prefix.js';

/**
 * The credential map in a real browser, once: TigerGraph 3.4 (which cannot verify an IdP's JWT at all), a
 * real OpenID provider putting the person in a group, the demo page's SSO button. Back from the IdP the
 * console says who signed in through which rule, links only the other graph the rule opens, and a query
 * goes through with a token of the rule's secret.
 */
const availability = chromiumAvailability();
if (!availability.run) console.warn(`Skipping the credential-map browser test: ${availability.reason}`);
const describeInBrowser = availability.run ? describe : describe.skip;

describeInBrowser('credential-map sign-in in headless Chromium', () => {
  const prefix = uniquePrefix('map-e2e');
  let idp: TestIdp;
  let sim: SimulatorHandle;
  let service: Service;
  let server: Server;
  let browser: HeadlessChromium;
  let url: string;
  let dir: string;
  let alias: string;

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    idp = await startTestIdp({
      redirectUris: [`${url}/auth/oidc/callback`],
      postLogoutRedirectUris: [`${url}/`],
      accessClaimsOf: () => ({ groups: ['graph-analysts'] }),
    });
    sim = await startSimulator({ version: '3.4.0', graphs: ['finance'] });
    const secret = sim.createSecret({ alias: 'analysts_e2e', graph: 'social' });
    alias = secret.alias;
    dir = mkdtempSync(path.join(tmpdir(), 'tgbff-map-e2e-'));
    writeFileSync(path.join(dir, 'tg-analysts'), secret.value);
    writeFileSync(
      path.join(dir, 'map.yaml'),
      [
        'rules:',
        '  - name: analysts',
        '    match: [graph-analysts]',
        '    graphs: [social, finance]',
        `    credential: { secretFile: ${path.join(dir, 'tg-analysts')} }`,
      ].join('\n'),
    );
    const config = loadConfig({
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(port),
      TG_RESTPP_URL: sim.restppUrl,
      TG_GSQL_URL: sim.gsqlUrl,
      TG_VERSION: sim.version,
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_PREFIX: prefix,
      SESSION_SECRET: 'a-session-secret-for-the-map-browser-test-0123456789',
      SESSION_ENCRYPTION_KEYS: 'k1:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
      LOG_LEVEL: 'silent',
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: idp.clientId,
      OIDC_CLIENT_SECRET: idp.clientSecret,
      OIDC_REDIRECT_URI: `${url}/auth/oidc/callback`,
      OIDC_AUDIENCE: idp.audience,
      OIDC_CREDENTIAL_MAP: path.join(dir, 'map.yaml'),
    });
    service = await createService({
      config,
      upstream: { restppUrl: sim.restppUrl, gsqlUrl: sim.gsqlUrl, version: config.tigergraph.version },
      logger: createLogger({ level: 'silent' }),
      instanceId: randomUUID(),
    });
    server = service.app.listen(port, '127.0.0.1');
    await once(server, 'listening');
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    await service?.close();
    await sim?.close();
    await idp?.close();
    rmSync(dir, { recursive: true, force: true });
    const redis = new Redis('redis://127.0.0.1:6379');
    await deleteKeysWithPrefix(redis, prefix).finally(() => redis.disconnect());
  });

  test('when an analyst signs in, then the console says who via which rule, offers only the open graphs, and a query runs on the rule token', async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    await page.goto(url);
    await page.locator('#sso').waitFor({ state: 'visible' });
    expect(await page.getAttribute('#sso-button', 'href')).toBe('/auth/oidc/login?graph=social');
    await page.click('#sso-button');
    await page.locator('input[name="login"]').waitFor();
    await page.fill('input[name="login"]', 'ana');
    await page.fill('input[name="password"]', 'any');
    await page.click('button[type="submit"]');
    await page.locator('button[type="submit"]').waitFor();
    if (page.url().startsWith(idp.issuer)) await page.click('button[type="submit"]');

    await page.waitForURL((u) => u.toString().startsWith(url));
    await page.locator('#app-view').waitFor({ state: 'visible' });
    const who = await page.textContent('#who');
    expect(who).toContain('Signed in as User ana via analysts');
    expect(who).toContain('to graph social');
    const offered = await page
      .locator('#who .open-graphs a')
      .evaluateAll((links) => links.map((a) => [a.textContent, a.getAttribute('href')]));
    expect(offered).toEqual([['finance', '/auth/oidc/login?graph=finance']]);

    await page.fill('#path', '/graph/social/vertices/Person');
    await page.click('#run-button');
    await page.locator('#output').filter({ hasText: 'v_id' }).waitFor();
    const bearer = sim
      .seen()
      .map((r) => String(r.headers?.authorization ?? ''))
      .filter((h) => h.startsWith('Bearer '))
      .at(-1);
    expect(
      sim
        .tokens()
        .filter((t) => t.secretAlias === alias)
        .map((t) => `Bearer ${t.token}`),
    ).toContain(bearer);
    expect(errors).toEqual([]);
  });
});
