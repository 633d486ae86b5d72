import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle, SimulatorOptions } from '../../../src/simulator/types.js';
import { deleteKeysWithPrefix, uniquePrefix, sessionKey } from '../../helpers/redis-prefix.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';

export const CSRF = { 'X-Requested-With': 'XMLHttpRequest' } as const;
const REDIS_URL = 'redis://127.0.0.1:6379';

/** Login limits out of the way, for tests whose subject is not the limits (many logins from one address). */
export const OPEN_LOGIN_LIMITS = {
  LOGIN_RATE_LIMIT: '1000',
  LOGIN_ADDRESS_BUDGET: '1000',
  LOGIN_CREDENTIAL_BUDGET: '1000',
} as const;

/** Service processes sharing one Redis prefix, one simulator and one set of session keys, like replicas behind a balancer. */
export interface Cluster {
  sim: SimulatorHandle;
  prefix: string;
  /** A secret the simulator accepts for graph `social`. */
  secret: string;
  /** The environment every instance got. */
  env: Record<string, string>;
  instances: ServiceProcess[];
  /** Starts one more instance, with `extra` on top of the shared environment; `close` kills it. */
  add(extra?: Record<string, string>): Promise<ServiceProcess>;
  /** A client of the shared Redis for inspecting keys; closed by `close`. */
  redis: Redis;
  keys(sid: string): { session: string; token: string; lease: string; tombstone: string };
  close(): Promise<void>;
}

export async function startCluster(options: {
  instances: number;
  label: string;
  env?: Record<string, string>;
  sim?: SimulatorOptions;
  /**
   * Another Redis than the machine's (a Sentinel group, a Cluster of the test's own): the mode's settings
   * (in place of REDIS_URL) and a client for `redis`. The test owns both and stops them.
   */
  store?: { env: Record<string, string>; inspect: Redis };
}): Promise<Cluster> {
  const sim = await startSimulator({ ...options.sim });
  const prefix = uniquePrefix(options.label);
  const env = {
    NODE_ENV: 'test',
    TG_RESTPP_URL: sim.restppUrl,
    TG_GSQL_URL: sim.gsqlUrl,
    TG_VERSION: sim.version,
    ...(options.store ? options.store.env : { REDIS_URL }),
    REDIS_PREFIX: prefix,
    SESSION_SECRET: randomBytes(32).toString('hex'),
    SESSION_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    COOKIE_SECURE: 'false',
    ...options.env,
  };
  const redis = options.store?.inspect ?? new Redis(REDIS_URL);
  const instances: ServiceProcess[] = [];
  const add = async (extra: Record<string, string> = {}) => {
    const instance = await startServiceProcess({ ...env, ...extra });
    instances.push(instance);
    return instance;
  };
  try {
    await Promise.all(Array.from({ length: options.instances }, () => add()));
  } catch (err) {
    await Promise.allSettled(instances.map((i) => i.kill()));
    if (!options.store) redis.disconnect();
    await sim.close();
    throw err;
  }
  return {
    sim,
    prefix,
    secret: sim.createSecret({ alias: `multi_${randomBytes(3).toString('hex')}` }).value,
    env,
    instances,
    add,
    redis,
    keys: (sid) => ({
      session: sessionKey(prefix, sid),
      token: `${prefix}tok:{${sid}}`,
      lease: `${prefix}lease:{${sid}}`,
      tombstone: `${prefix}dead:{${sid}}`,
    }),
    async close() {
      await Promise.allSettled(instances.map((i) => i.kill()));
      if (!options.store) {
        await deleteKeysWithPrefix(redis, prefix).catch(() => undefined);
        redis.disconnect();
      }
      await sim.close();
    },
  };
}

/** Logs in on one instance and returns the `name=value` cookie pair a browser would send back. */
export async function login(baseUrl: string, secret: string): Promise<string> {
  const res = await fetch(`${baseUrl}/auth/login`, {
    method: 'POST',
    headers: { ...CSRF, 'Content-Type': 'application/json' },
    body: JSON.stringify({ secret, graph: 'social' }),
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  const setCookie = res.headers.get('set-cookie') ?? '';
  const pair = setCookie.split(';')[0] ?? '';
  if (!pair.includes('=')) throw new Error('login set no cookie');
  return pair;
}

export interface Answer {
  status: number;
  body: { error?: { code?: string } } & Record<string, unknown>;
}

/** One request as the browser's fetch would send it (cookie and CSRF header), body read to the end. */
export async function call(baseUrl: string, path: string, cookie: string, method = 'GET'): Promise<Answer> {
  const res = await fetch(`${baseUrl}${path}`, { method, headers: { ...CSRF, Cookie: cookie } });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Answer['body']) : {} };
}
