import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { Redis } from 'ioredis';
import { loadConfig, type Config } from '../../../src/config.js';
import { createLogger } from '../../../src/observability/logger.js';
import { createService, type Service } from '../../../src/service.js';
import { startTestIdp, type TestIdp, type TestIdpOptions } from '../../helpers/oidc-provider.js';
import { deleteKeysWithPrefix, uniquePrefix } from '../../helpers/redis-prefix.js';

export const CSRF = { 'X-Requested-With': 'XMLHttpRequest' } as const;
/** The origin the IdP redirects browsers to; the test browser maps it to whichever instance it uses. */
export const BFF_ORIGIN = 'http://bff.example.test';
export const REDIRECT_URI = `${BFF_ORIGIN}/auth/oidc/callback`;

/** A data-server stand-in that answers 200 to everything and records each request's Authorization header. */
export interface CountingUpstream {
  url: string;
  authorizations: string[];
  close(): Promise<void>;
}

export async function startCountingUpstream(): Promise<CountingUpstream> {
  const authorizations: string[] = [];
  const server = createServer((req, res) => {
    authorizations.push(req.headers.authorization ?? '');
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end('{"error":false,"message":"ok","results":[]}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    authorizations,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One service instance, in-process, on a real loopback port. */
export interface Instance {
  url: string;
  service: Service;
  config: Config;
  logs(): string;
  close(): Promise<void>;
}

export interface OidcRig {
  idp: TestIdp;
  upstream: CountingUpstream;
  prefix: string;
  /** The environment every instance got. */
  env: Record<string, string>;
  instances: Instance[];
  /** Starts one more instance on the same Redis prefix and keys (another replica behind the balancer). */
  add(options?: { now?: () => number; env?: Record<string, string> }): Promise<Instance>;
  redis: Redis;
  /** Session records (`sess:` keys) under this rig's prefix. */
  sessionKeys(): Promise<string[]>;
  close(): Promise<void>;
}

export interface OidcRigOptions {
  idp?: Partial<TestIdpOptions>;
  env?: Record<string, string>;
  now?: () => number;
  /** Instances to start (default 1). */
  instances?: number;
}

export async function startOidcRig(options: OidcRigOptions = {}): Promise<OidcRig> {
  const idp = await startTestIdp({
    redirectUris: [REDIRECT_URI],
    postLogoutRedirectUris: [`${BFF_ORIGIN}/`],
    backchannelLogoutUri: `${BFF_ORIGIN}/auth/oidc/backchannel-logout`,
    ...options.idp,
  });
  const upstream = await startCountingUpstream();
  const prefix = uniquePrefix('oidc');
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    TG_RESTPP_URL: upstream.url,
    TG_GSQL_URL: upstream.url,
    TG_VERSION: '4.1.3',
    REDIS_URL: 'redis://127.0.0.1:6379',
    REDIS_PREFIX: prefix,
    SESSION_SECRET: randomBytes(32).toString('hex'),
    SESSION_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    COOKIE_SECURE: 'false',
    LOG_LEVEL: 'debug',
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: idp.clientId,
    OIDC_CLIENT_SECRET: idp.clientSecret,
    OIDC_REDIRECT_URI: REDIRECT_URI,
    OIDC_AUDIENCE: idp.audience,
    ...options.env,
  };
  const redis = new Redis('redis://127.0.0.1:6379');
  const instances: Instance[] = [];

  const add = async (more: { now?: () => number; env?: Record<string, string> } = {}): Promise<Instance> => {
    const config = loadConfig({ ...env, ...more.env });
    let logText = '';
    const sink = new PassThrough();
    sink.on('data', (chunk: Buffer) => (logText += chunk.toString()));
    const service = await createService({
      config,
      upstream: { restppUrl: upstream.url, gsqlUrl: upstream.url, version: config.tigergraph.version },
      logger: createLogger({ level: config.logLevel, destination: sink }),
      now: more.now ?? options.now ?? Date.now,
    });
    const server: Server = createServer(service.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const instance: Instance = {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      service,
      config,
      logs: () => logText,
      async close() {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await service.close();
      },
    };
    instances.push(instance);
    return instance;
  };

  for (let i = 0; i < (options.instances ?? 1); i++) await add();

  return {
    idp,
    upstream,
    prefix,
    env,
    instances,
    add,
    redis,
    sessionKeys: () => redis.keys(`${prefix}sess:*`),
    async close() {
      await Promise.allSettled(instances.map((i) => i.close()));
      await deleteKeysWithPrefix(redis, prefix).catch(() => undefined);
      redis.disconnect();
      await upstream.close();
      await idp.close();
    },
  };
}

/** What a browser got back for one request (no redirects followed). */
export interface Answer {
  status: number;
  url: string;
  headers: Headers;
  setCookies: string[];
  location: string | null;
  text: string;
  json(): unknown;
}

/**
 * A browser by hand: one cookie jar per origin, redirects not followed unless asked, and the
 * BFF's public origin (BFF_ORIGIN) mapped to the instance this browser talks to.
 */
export class Browser {
  private readonly jars = new Map<string, Map<string, string>>();
  constructor(public bff: string) {}

  private resolve(url: string): URL {
    const u = new URL(url, this.bff);
    if (u.origin === BFF_ORIGIN) return new URL(u.pathname + u.search, this.bff);
    return u;
  }

  cookies(origin: string): Map<string, string> {
    const key = new URL(origin).origin;
    let jar = this.jars.get(key);
    if (!jar) this.jars.set(key, (jar = new Map()));
    return jar;
  }

  /** The service's cookies (by name) as this browser holds them. */
  bffCookies(): Map<string, string> {
    return this.cookies(this.bff);
  }

  async request(url: string, init: { method?: string; headers?: Record<string, string>; form?: Record<string, string> } = {}): Promise<Answer> {
    const target = this.resolve(url);
    const jar = this.cookies(target.origin);
    const headers: Record<string, string> = { ...init.headers };
    if (jar.size > 0) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(target, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    const setCookies = res.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair, ...attrs] = line.split(';').map((s) => s.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      const expired = attrs.some((a) => /^max-age=(0|-)/i.test(a) || (/^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now()));
      if (expired || value === '') jar.delete(name);
      else jar.set(name, value);
    }
    const text = await res.text();
    const location = res.headers.get('location');
    return {
      status: res.status,
      url: target.href,
      headers: res.headers,
      setCookies,
      location: location === null ? null : new URL(location, target).href,
      text,
      json: () => JSON.parse(text) as unknown,
    };
  }

  /** Follows redirects from `url` until an answer that is not one, or until `stop` says so. */
  async follow(url: string, stop: (next: string) => boolean = () => false, init: { headers?: Record<string, string> } = {}): Promise<Answer> {
    let answer = await this.request(url, init);
    for (let i = 0; i < 20 && answer.status >= 300 && answer.status < 400 && answer.location; i++) {
      if (stop(answer.location)) return answer;
      answer = await this.request(answer.location, init);
    }
    return answer;
  }

  /** An API call to the service (CSRF header, JSON accepted). */
  api(path: string, method = 'GET', extra: Record<string, string> = {}): Promise<Answer> {
    return this.request(path, { method, headers: { ...CSRF, accept: 'application/json', ...extra } });
  }
}

const formAction = (html: string): string => {
  const m = /<form[^>]*action="([^"]+)"/i.exec(html);
  if (!m) throw new Error(`no form in the IdP page:\n${html.slice(0, 500)}`);
  return m[1]!;
};

/**
 * Drives the IdP's own pages (oidc-provider's dev interactions: a login form, then a consent form) from
 * its authorization URL until it redirects to the service's callback; returns that callback URL.
 */
export async function signInAtIdp(browser: Browser, authorizationUrl: string, user: string): Promise<string> {
  const isCallback = (u: string) => u.startsWith(REDIRECT_URI);
  let page = await browser.follow(authorizationUrl, isCallback);
  for (let step = 0; step < 4; step++) {
    if (page.location && isCallback(page.location)) return page.location;
    if (page.status !== 200) throw new Error(`IdP answered ${page.status}: ${page.text.slice(0, 300)}`);
    const action = new URL(formAction(page.text), page.url).href;
    const form: Record<string, string> = /name="login"/.test(page.text) ? { prompt: 'login', login: user, password: 'any' } : { prompt: 'consent' };
    const posted = await browser.request(action, { method: 'POST', form });
    page = posted.location ? await browser.follow(posted.location, isCallback) : posted;
  }
  throw new Error('the IdP never redirected to the callback');
}

/** Full login through the redirects: service login → IdP login and consent → service callback. */
export async function ssoLogin(browser: Browser, user: string, query = ''): Promise<{ callback: string; answer: Answer }> {
  const start = await browser.request(`/auth/oidc/login${query}`);
  if (start.status !== 303 || !start.location) throw new Error(`login did not redirect: ${start.status} ${start.text}`);
  const callback = await signInAtIdp(browser, start.location, user);
  const answer = await browser.request(callback);
  return { callback, answer };
}

export const decodeJwt = (jwt: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

export const bearerOf = (authorization: string): string => authorization.replace(/^Bearer /, '');

export type { IncomingHttpHeaders };
