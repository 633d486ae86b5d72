import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { Redis } from 'ioredis';
import type { Page } from 'playwright-core';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/observability/logger.js';
import { createService, type Service } from '../../src/service.js';
import type { SimulatorHandle } from '../../src/simulator/types.js';
import { launchChromium, type HeadlessChromium } from '../helpers/chromium.js';
import { startTestIdp, type TestIdp, type TestIdpOptions } from '../helpers/oidc-provider.js';
import { freePort } from '../helpers/ports.js';
import { deleteKeysWithPrefix, uniquePrefix } from '../helpers/redis-prefix.js';

/**
 * What the single sign-on browser tests share: the service listening on a free loopback port with OIDC on,
 * a real OpenID provider whose client is registered for that port, a simulator, and headless Chromium.
 */
export interface BrowserSso {
  url: string;
  idp: TestIdp;
  sim: SimulatorHandle;
  service: Service;
  browser: HeadlessChromium;
  close(): Promise<void>;
}

export async function startBrowserSso(options: {
  label: string;
  /** The IdP's options beyond the redirect URIs, which the rig sets for its port. */
  idp: Omit<TestIdpOptions, 'redirectUris' | 'postLogoutRedirectUris'>;
  /** Makes the simulator once the IdP is up (its keys may be what the simulator verifies). */
  sim: (idp: TestIdp) => Promise<SimulatorHandle>;
  /** Settings beyond the rig's (Redis, keys, OIDC client); OIDC_AUDIENCE, OIDC_CREDENTIAL_MAP and such. */
  env: (idp: TestIdp) => Record<string, string>;
}): Promise<BrowserSso> {
  const prefix = uniquePrefix(options.label);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const made: Partial<BrowserSso> & { server?: Server } = { url };
  const close = async () => {
    await made.browser?.close();
    if (made.server) await new Promise<void>((resolve) => made.server!.close(() => resolve()));
    await made.service?.close();
    await made.sim?.close();
    await made.idp?.close();
    const redis = new Redis('redis://127.0.0.1:6379');
    await deleteKeysWithPrefix(redis, prefix).finally(() => redis.disconnect());
  };
  try {
    const idp = (made.idp = await startTestIdp({
      ...options.idp,
      redirectUris: [`${url}/auth/oidc/callback`],
      postLogoutRedirectUris: [`${url}/`],
    }));
    const sim = (made.sim = await options.sim(idp));
    const config = loadConfig({
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(port),
      TG_RESTPP_URL: sim.restppUrl,
      TG_GSQL_URL: sim.gsqlUrl,
      TG_VERSION: sim.version,
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_PREFIX: prefix,
      SESSION_SECRET: `a-session-secret-for-the-${options.label}-browser-test-0123456789`,
      SESSION_ENCRYPTION_KEYS: 'k1:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
      LOG_LEVEL: 'silent',
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: idp.clientId,
      OIDC_CLIENT_SECRET: idp.clientSecret,
      OIDC_REDIRECT_URI: `${url}/auth/oidc/callback`,
      ...options.env(idp),
    });
    made.service = await createService({
      config,
      upstream: { restppUrl: sim.restppUrl, gsqlUrl: sim.gsqlUrl, version: config.tigergraph.version },
      logger: createLogger({ level: 'silent' }),
      instanceId: randomUUID(),
    });
    made.server = made.service.app.listen(port, '127.0.0.1');
    await once(made.server, 'listening');
    made.browser = await launchChromium();
    return { ...(made as Omit<BrowserSso, 'close'>), close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** oidc-provider's development login page, then its consent page when it shows one. */
export async function signInAtIdp(page: Page, idp: TestIdp, user: string): Promise<void> {
  await page.locator('input[name="login"]').waitFor();
  if (!page.url().startsWith(idp.issuer)) throw new Error(`not at the IdP's login page: ${page.url()}`);
  await page.fill('input[name="login"]', user);
  await page.fill('input[name="password"]', 'any');
  await page.click('button[type="submit"]');
  await page.locator('button[type="submit"]').waitFor();
  if (page.url().startsWith(idp.issuer)) await page.click('button[type="submit"]');
}
