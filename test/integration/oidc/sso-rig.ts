import { createAudit } from '../../../src/observability/audit.js';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { Redis } from 'ioredis';
import supertest from 'supertest';
import { loadConfig, type Config } from '../../../src/config.js';
import { createLogger } from '../../../src/observability/logger.js';
import { createService, type Service } from '../../../src/service.js';
import { deleteKeysWithPrefix, uniquePrefix } from '../../helpers/redis-prefix.js';
import type { TestIdp } from '../../helpers/oidc-provider.js';

export const CSRF = { 'X-Requested-With': 'XMLHttpRequest' } as const;
/** Registered at the test IdP; the service rebuilds the callback URL from it, so no listener is needed there. */
export const REDIRECT_URI = 'http://bff.test/auth/oidc/callback';

/**
 * A stand-in data server (test-only): counts requests and records the Authorization header each one
 * carried, answering a RESTPP-like JSON body. Until the simulator verifies external JWTs, this is what
 * the relay tests look at.
 */
export interface CountingUpstream {
  url: string;
  seen: string[];
  close(): Promise<void>;
}

export async function startCountingUpstream(): Promise<CountingUpstream> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    // The service's one probe at start (GET /version, no token; issue 43) is not a call on anyone's behalf.
    if (!(req.method === 'GET' && req.url === '/version')) seen.push(req.headers.authorization ?? '');
    req.resume();
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ version: { edition: 'test' }, error: false, message: 'hello', results: [] }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export interface SsoService {
  service: Service;
  config: Config;
  logs(): string;
  /** The instance's audit trail (observability/audit.ts), as text. */
  audit(): string;
  close(): Promise<void>;
}

/** One service instance with OIDC on, over the machine's Redis under `prefix` (instances may share one). */
export async function startSsoService(options: {
  idp: TestIdp;
  upstream: string;
  prefix: string;
  env?: Record<string, string>;
  now?: () => number;
  /** An admin server (ADMIN_ROUTES), e.g. a simulator's. */
  gsqlUrl?: string;
}): Promise<SsoService> {
  const config = loadConfig({
    NODE_ENV: 'test',
    TG_RESTPP_URL: options.upstream,
    TG_VERSION: '3.9.3',
    REDIS_URL: 'redis://127.0.0.1:6379',
    REDIS_PREFIX: options.prefix,
    SESSION_SECRET: 'a-session-secret-shared-by-the-instances-0123456789',
    SESSION_ENCRYPTION_KEYS: 'k1:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
    COOKIE_SECURE: 'false',
    LOG_LEVEL: 'debug',
    OIDC_ISSUER: options.idp.issuer,
    OIDC_CLIENT_ID: options.idp.clientId,
    OIDC_CLIENT_SECRET: options.idp.clientSecret,
    OIDC_REDIRECT_URI: REDIRECT_URI,
    OIDC_AUDIENCE: options.idp.audience,
    ...options.env,
  });
  let text = '';
  const sink = new PassThrough();
  sink.on('data', (c: Buffer) => (text += c.toString()));
  let auditText = '';
  const service = await createService({
    config,
    upstream: {
      restppUrl: options.upstream,
      ...(options.gsqlUrl && { gsqlUrl: options.gsqlUrl }),
      version: config.tigergraph.version,
    },
    logger: createLogger({ level: config.logLevel, destination: sink }),
    audit: createAudit({ destination: { write: (line: string) => void (auditText += line) } }),
    instanceId: randomUUID(),
    ...(options.now && { now: options.now }),
  });
  return { service, config, logs: () => text, audit: () => auditText, close: () => service.close() };
}

export const newPrefix = (): string => uniquePrefix('oidc');

/** Every key under the prefix with its raw value (strings, hashes, sets), for leak and state checks. */
export async function redisDump(prefix: string): Promise<Map<string, string>> {
  const redis = new Redis('redis://127.0.0.1:6379');
  try {
    const out = new Map<string, string>();
    const keys = await redis.keys(`${prefix}*`);
    for (const key of keys) {
      const type = await redis.type(key);
      const value =
        type === 'string'
          ? await redis.get(key)
          : type === 'hash'
            ? JSON.stringify(await redis.hgetall(key))
            : type === 'set'
              ? JSON.stringify(await redis.smembers(key))
              : type;
      out.set(key, value ?? '');
    }
    return out;
  } finally {
    redis.disconnect();
  }
}

export async function dropPrefix(prefix: string): Promise<void> {
  const redis = new Redis('redis://127.0.0.1:6379');
  try {
    await deleteKeysWithPrefix(redis, prefix);
  } finally {
    redis.disconnect();
  }
}

/** `name=value` of each Set-Cookie of an answer. */
export function setCookies(res: { headers: Record<string, unknown> }): string[] {
  const raw = res.headers['set-cookie'];
  return (Array.isArray(raw) ? raw : raw ? [String(raw)] : []) as string[];
}

export const cookiePair = (setCookie: string): string => setCookie.split(';')[0]!;

/** The session cookie the service set (not the pre-login one), or undefined. */
export function sessionCookieOf(res: { headers: Record<string, unknown> }, name = 'tgbff'): string | undefined {
  return setCookies(res)
    .map(cookiePair)
    .find((c) => c.startsWith(`${name}=`) && c !== `${name}=`);
}

/** A tiny cookie jar for the IdP's own cookies (paths ignored: all go back to the one test IdP). */
export class IdpBrowser {
  private readonly cookies = new Map<string, string>();
  take(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/**
 * Walks the IdP's side of a login by hand over HTTP: follows each redirect, submits the dev login form
 * with `user` and the consent form, until the IdP redirects to the registered callback. Returns that
 * callback URL (with code and state, or an error).
 */
export async function idpLogin(authorizeUrl: string, user: string, jar = new IdpBrowser()): Promise<URL> {
  let url = authorizeUrl;
  let method = 'GET';
  let body: string | undefined;
  for (let step = 0; step < 20; step++) {
    const res = await fetch(url, {
      method,
      redirect: 'manual',
      headers: { cookie: jar.header(), ...(body && { 'content-type': 'application/x-www-form-urlencoded' }) },
      ...(body && { body }),
    });
    jar.take(res);
    if (res.status >= 300 && res.status < 400) {
      await res.arrayBuffer();
      const next = new URL(res.headers.get('location')!, url);
      if (next.href.startsWith(REDIRECT_URI)) return next;
      url = next.href;
      method = 'GET';
      body = undefined;
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`IdP answered ${res.status}: ${html.slice(0, 300)}`);
    const action = /<form[^>]*action="([^"]+)"[^>]*method="post"/i.exec(html)?.[1];
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    if (!action || !prompt) throw new Error(`no form at the IdP: ${html.slice(0, 300)}`);
    url = new URL(action, url).href;
    method = 'POST';
    body =
      prompt === 'login'
        ? new URLSearchParams({ prompt, login: user, password: 'any' }).toString()
        : new URLSearchParams({ prompt }).toString();
  }
  throw new Error('too many steps at the IdP');
}

/** The service's request listener (in-process) or the base URL of a service process. */
export type App = Service['app'] | string;

export interface SsoLogin {
  /** `tgbff=…`, the session cookie. */
  cookie: string;
  /** Where the callback sent the browser. */
  location: string;
}

/** The whole login, by hand: /auth/oidc/login at the service, the IdP's pages, the callback at the service. */
export async function ssoLogin(app: App, user: string, query = ''): Promise<SsoLogin> {
  const { preCookie, authorizeUrl } = await startLogin(app, query);
  const callback = await idpLogin(authorizeUrl, user);
  const res = await supertest(app).get(`/auth/oidc/callback${callback.search}`).set('Cookie', preCookie);
  if (res.status !== 303) throw new Error(`callback answered ${res.status}: ${res.text}`);
  const cookie = sessionCookieOf(res);
  if (!cookie) throw new Error('no session cookie');
  return { cookie, location: res.headers.location as string };
}

export async function startLogin(app: App, query = ''): Promise<{ preCookie: string; authorizeUrl: string }> {
  const res = await supertest(app).get(`/auth/oidc/login${query}`);
  if (res.status !== 303) throw new Error(`login answered ${res.status}: ${res.text}`);
  const pre = setCookies(res)
    .map(cookiePair)
    .find((c) => c.startsWith('tgbff-sso='));
  return { preCookie: pre!, authorizeUrl: res.headers.location as string };
}

export const jwtPayload = (bearer: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(bearer.replace(/^Bearer /, '').split('.')[1]!, 'base64url').toString()) as Record<
    string,
    unknown
  >;

/**
 * Ends the user's session at the IdP itself (its end_session endpoint, confirmed as a user would), which
 * makes the IdP send back-channel logout tokens to the clients of that session.
 */
export async function idpEndSession(issuer: string, jar: IdpBrowser): Promise<void> {
  const page = await fetch(`${issuer}/session/end`, { headers: { cookie: jar.header() }, redirect: 'manual' });
  jar.take(page);
  const html = await page.text();
  const action = /<form id="op.logoutForm" method="post" action="([^"]+)">/.exec(html)?.[1];
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1];
  if (!action || !xsrf) throw new Error(`no logout form at the IdP: ${html.slice(0, 300)}`);
  const done = await fetch(new URL(action, issuer), {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ xsrf, logout: 'yes' }).toString(),
  });
  await done.arrayBuffer();
  if (done.status >= 400) throw new Error(`IdP logout answered ${done.status}`);
}
