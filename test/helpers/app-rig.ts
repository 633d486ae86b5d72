import { createAudit } from '../../src/observability/audit.js';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { Redis } from 'ioredis';
import supertest from 'supertest';
import { loadConfig, type Config } from '../../src/config.js';
import { READINESS_PROBE_INTERVAL_MS } from '../../src/http/routes/ops-routes.js';
import { createLogger } from '../../src/observability/logger.js';
import type { SweepOptions } from '../../src/admin/admin-parts.js';
import { createService, type Service } from '../../src/service.js';
import { startSimulator } from '../../src/simulator/index.js';
import type { SimulatorHandle, SimulatorOptions } from '../../src/simulator/types.js';
import { uniquePrefix } from './redis-prefix.js';
import { elapse, until, WAIT_MS } from './wait.js';
import { startRedisServer, type RedisServer } from './redis-server.js';

// parseSetCookie lives in cookies.ts; re-exported for the test files that import it from here.
export { parseSetCookie } from './cookies.js';

export const CSRF = { 'X-Requested-With': 'XMLHttpRequest' } as const;

export interface RigOptions {
  /** Extra environment for loadConfig (the rig fills upstream, Redis and cookie settings). */
  env?: Record<string, string>;
  sim?: SimulatorOptions;
  /**
   * 'redis' (default: the machine's Redis, unique prefix), 'memory', a Redis URL of the test's own, or
   * the Redis environment of a test's own Sentinel group or Cluster (`{env: {REDIS_SENTINELS: …}}`).
   */
  store?: string | { env: Record<string, string> };
  now?: () => number;
  leaseTtlMs?: number;
  /** Secret sweeper timing (PASSWORD_LOGIN tests). */
  secretSweep?: SweepOptions;
  /** Admin-server URL the service uses instead of the simulator's (e.g. a closed port). */
  gsqlUrl?: string;
  /**
   * Something between the service and the simulator's data server (a tap, a fault proxy): given the
   * simulator, it returns the URL the service is to use as TG_RESTPP_URL; closed after the service.
   */
  dataServer?: (sim: SimulatorHandle) => Promise<{ url: string; close(): Promise<void> }>;
  /** Names the key prefix on the shared Redis (`test:<label>:<random>:`), for a reader of its keys. */
  label?: string;
}

export interface Rig {
  sim: SimulatorHandle;
  service: Service;
  config: Config;
  /** A secret the simulator accepts for graph `social`, and its alias. */
  secret: string;
  alias: string;
  prefix: string;
  /** The data server URL the service was configured with: the simulator's, or `dataServer`'s. */
  restppUrl: string;
  /** Every log line the service wrote, as text. */
  logs(): string;
  /** Every audit line the service wrote (its audit trail, observability/audit.ts), as text. */
  audit(): string;
  /** A cookie-keeping client that always sends the CSRF header. */
  agent(): supertest.Agent;
  /** Logs an agent in with the rig's secret (or another) and returns it. */
  login(secret?: string): Promise<supertest.Agent>;
  /** Listens on an ephemeral loopback port, for tests that need a real socket (streaming, aborts). */
  listen(): Promise<string>;
  /** A client of the rig's Redis (closed with the rig). */
  redis(): Redis;
  close(): Promise<void>;
}

export async function startRig(options: RigOptions = {}): Promise<Rig> {
  const now = options.now ?? Date.now;
  const sim = await startSimulator({ ...(options.now && { now }), ...options.sim });
  const { alias, value: secret } = sim.createSecret({ alias: `rig_${randomUUID().slice(0, 8)}` });
  const prefix = uniquePrefix(options.label ?? 'rig');
  const between = await options.dataServer?.(sim);
  const restppUrl = between?.url ?? sim.restppUrl;
  const store = options.store ?? 'redis';
  const redisUrl =
    typeof store !== 'string' || store === 'memory' ? undefined : store === 'redis' ? 'redis://127.0.0.1:6379' : store;
  const config = loadConfig({
    NODE_ENV: 'test',
    TG_RESTPP_URL: restppUrl,
    TG_GSQL_URL: options.gsqlUrl ?? sim.gsqlUrl,
    TG_VERSION: sim.version,
    ...(redisUrl && { REDIS_URL: redisUrl }),
    ...(typeof store === 'object' && store.env),
    REDIS_PREFIX: prefix,
    COOKIE_SECURE: 'false',
    LOG_LEVEL: 'debug',
    // Building GET /openapi.json parses docs/openapi.yaml (about 0.1 s of CPU per app); the tests of that
    // route turn it on.
    OPENAPI_ROUTE: 'false',
    ...options.env,
  });
  let logText = '';
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => (logText += chunk.toString()));
  const logger = createLogger({ level: config.logLevel, destination: sink });
  let auditText = '';
  const audit = createAudit({ destination: { write: (line: string) => void (auditText += line) } });
  const service = await createService({
    config,
    upstream: { restppUrl, gsqlUrl: options.gsqlUrl ?? sim.gsqlUrl, version: sim.version },
    logger,
    audit,
    now,
    ...(options.leaseTtlMs !== undefined && { leaseTtlMs: options.leaseTtlMs }),
    ...(options.secretSweep && { secretSweep: options.secretSweep }),
  });
  // The start-up probe of TigerGraph (GET /version) is in the simulator's record before any test looks at it.
  await service.startupProbe;
  const servers: Server[] = [];
  const clients: Redis[] = [];

  const agent = () => supertest.agent(service.app).set(CSRF);
  const rig: Rig = {
    sim,
    service,
    config,
    secret,
    alias,
    prefix,
    restppUrl,
    logs: () => logText,
    audit: () => auditText,
    agent,
    async login(other = secret) {
      const a = agent();
      const res = await a.post('/auth/login').send({ secret: other, graph: 'social' });
      if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
      return a;
    },
    async listen() {
      const server = service.app.listen(0, '127.0.0.1');
      servers.push(server);
      await new Promise<void>((resolve) => server.once('listening', () => resolve()));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    redis() {
      if (typeof store === 'object') throw new Error('rig.redis() needs a URL store; connect to your own servers');
      const client = new Redis(redisUrl ?? 'redis://127.0.0.1:6379');
      clients.push(client);
      return client;
    },
    async close() {
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      if (redisUrl)
        await deleteByPrefix(redisUrl, prefix, config.redis.mode === 'memory' ? {} : config.redis).catch(
          () => undefined,
        );
      for (const client of clients) client.disconnect();
      await service.close();
      await between?.close();
      await sim.close();
    },
  };
  return rig;
}

export interface OwnRedisRig {
  rig: Rig;
  redis: RedisServer;
  close(): Promise<void>;
}

/** A rig on a redis-server of its own, for tests that stop, freeze or restart Redis (never the shared one). */
export async function startRigOnOwnRedis(options: Omit<RigOptions, 'store'> = {}): Promise<OwnRedisRig> {
  const redis = await startRedisServer();
  try {
    const rig = await startRig({ ...options, store: redis.url });
    return {
      rig,
      redis,
      async close() {
        await rig.close();
        await redis.stop();
      },
    };
  } catch (err) {
    await redis.stop();
    throw err;
  }
}

/**
 * Polls /readyz until it is 200 (readiness recovers by itself as clients reconnect); the last status, so a
 * caller's `expect(...).toBe(200)` names what it saw instead. `timeoutMs` is how long to keep trying.
 */
export async function untilReady(rig: Rig, timeoutMs = WAIT_MS): Promise<number> {
  let status = 0;
  await until(
    '/readyz to answer 200',
    async () => {
      status = (await rig.agent().get('/readyz')).status;
      return status === 200;
    },
    { timeoutMs, intervalMs: 100 },
  ).catch(() => undefined);
  return status;
}

/** How often readinessUntil samples /readyz. */
const SAMPLE_EVERY_MS = 100;
/** The longest one /readyz answer may take while a dependency hangs: its check bound (1 s), with room. */
const ANSWER_BOUND_MS = 3000;

/** One GET /readyz, timed: status, body, headers and how long the answer took. */
export async function readyz(rig: Rig) {
  const started = performance.now();
  const res = await rig.agent().get('/readyz');
  return { status: res.status, body: res.body, headers: res.headers, ms: performance.now() - started };
}

/** One GET through a rig's agent, timed: its status, the service's error code if any, and how long it took (ms). */
export async function timedGet(agent: supertest.Agent, path = '/api/echo') {
  const started = performance.now();
  const res = await agent.get(path);
  const code = (res.body as { error?: { code?: string } }).error?.code;
  return { status: res.status, code, ms: Math.round(performance.now() - started) };
}

/**
 * /readyz every 100 ms from `from` (a `Date.now()`) until `done` says so (default: the first 503) or
 * `timeoutMs` pass since `from`: each status, with how long after `from` it came. A sampler, not a wait:
 * the timeline over time is what its callers judge (an error window's length, what came before the 503),
 * so it samples at a fixed pace and returns what it saw when `timeoutMs` runs out instead of throwing.
 */
export async function readinessUntil(
  rig: Rig,
  from: number,
  timeoutMs: number,
  done: (status: number) => boolean | Promise<boolean> = (status) => status === 503,
) {
  const seen: Array<{ at: number; status: number }> = [];
  while (Date.now() - from < timeoutMs) {
    const { status } = await readyz(rig);
    seen.push({ at: Date.now() - from, status });
    if (await done(status)) break;
    await elapse(SAMPLE_EVERY_MS, 'the pace of a readiness timeline, sampled over time');
  }
  return seen;
}

/**
 * The first 503 after a dependency went away. A check's verdict is shared and reused for up to
 * READINESS_PROBE_INTERVAL_MS after its probe (so a flood of /readyz costs one probe a second), so an
 * outage shows within that plus the check's own bound; each answer still comes within the check bound.
 */
export async function untilNotReady(rig: Rig): Promise<Awaited<ReturnType<typeof readyz>>> {
  let answer: Awaited<ReturnType<typeof readyz>> | undefined;
  // The deadline is the promise under test (a probe interval, then the check's own bound): past it, the last
  // answer (not a 503) goes back for the caller's assertion to name.
  await until(
    '/readyz to turn 503',
    async () => {
      answer = await readyz(rig);
      return answer.status === 503 || answer.ms >= ANSWER_BOUND_MS;
    },
    { timeoutMs: READINESS_PROBE_INTERVAL_MS + 2000, intervalMs: 50 },
  ).catch(() => undefined);
  if (answer === undefined) throw new Error('/readyz never answered');
  if (answer.ms >= ANSWER_BOUND_MS) throw new Error(`/readyz took ${Math.round(answer.ms)} ms, past its check bound`);
  return answer;
}

async function deleteByPrefix(
  url: string,
  prefix: string,
  auth: { username?: string; password?: string },
): Promise<void> {
  const client = new Redis(url, {
    maxRetriesPerRequest: 1,
    connectTimeout: 1000,
    ...(auth.username !== undefined && { username: auth.username }),
    ...(auth.password !== undefined && { password: auth.password }),
  });
  client.on('error', () => undefined); // a test's wrong password or dead server: cleanup is best effort
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length) await client.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}
