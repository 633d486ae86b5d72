import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { BenchOptions } from './options.js';
import { answers, freePort, startChild, type Child } from './processes.js';
import type { SimulatorClient } from './simulator-client.js';
import { startNginxRelay } from './nginx-relay.js';

/** A subject ready for load: where to send it and with which credentials. */
export interface Target {
  url: string;
  headers: Record<string, string>;
  /**
   * One value per session, rotated across requests: the logged-in cookies, or for direct one bearer
   * header per session's token. The floor gets dummy cookies, so every subject costs the load generator
   * the same.
   */
  credentials: { header: string; values: string[] };
  /** The process whose memory is reported (the simulator itself for direct). */
  child: Child;
  /** Key prefix on the benchmark Redis, when the subject uses it. */
  redisPrefix: string | null;
}

export interface SubjectContext {
  root: string;
  options: BenchOptions;
  sim: SimulatorClient;
  simChild: Child;
  /** One per session: every benchmark user has a secret of its own. */
  secrets: string[];
  redisUrl: string;
}

export interface Subject {
  id: string;
  label: string;
  start(ctx: SubjectContext): Promise<Target>;
}

const XHR = { 'x-requested-with': 'XMLHttpRequest' };

export const SUBJECTS: Subject[] = [
  {
    id: 'direct',
    label: '(a) direct to the simulator',
    async start(ctx) {
      const tokens = await Promise.all(ctx.secrets.map((secret) => ctx.sim.mintToken(secret, 2_592_000)));
      const credentials = { header: 'authorization', values: tokens.map((token) => `Bearer ${token}`) };
      return { url: `${ctx.sim.restppUrl}/echo`, headers: {}, credentials, child: ctx.simChild, redisPrefix: null };
    },
  },
  floor('floor', '(b) floor: node:http + undici dispatch', 'dispatch'),
  {
    id: 'plain-peer',
    label: '(c) plain peer: express-session + proxy',
    async start(ctx) {
      const port = await freePort();
      const prefix = `bench-peer:${randomBytes(4).toString('hex')}:`;
      const env = {
        PORT: String(port),
        UPSTREAM: ctx.sim.restppUrl,
        REDIS_URL: ctx.redisUrl,
        REDIS_PREFIX: prefix,
        SESSION_SECRET: randomBytes(24).toString('hex'),
      };
      const child = await script(ctx, 'plain-peer', 'plain-peer.js', env, port);
      const cookies = await loginAll(ctx.secrets, (secret) => login(`http://127.0.0.1:${port}/login`, { secret }, {}));
      return {
        url: `http://127.0.0.1:${port}/api/echo`,
        headers: {},
        credentials: { header: 'cookie', values: cookies },
        child,
        redisPrefix: prefix,
      };
    },
  },
  bff('bff-redis', '(d) tigergraph-bff, Redis', 'redis', {}),
  bff('bff-memory', '(e) tigergraph-bff, memory store', 'memory', {}),
  // The broker refuses a refresh margin at or above the lifetime, so the most refreshing a
  // configuration allows is this: a token is due one second (at most) after it was refreshed.
  bff('bff-refresh', '(f) tigergraph-bff, Redis, refresh every second', 'redis', {
    TG_TOKEN_LIFETIME: '3600',
    TOKEN_REFRESH_BEFORE: '3599',
  }),
  // The C anchor: what a relay costs in nginx, on the same load (issue 46).
  {
    id: 'nginx',
    label: '(g) nginx: proxy_pass, fixed bearer',
    async start(ctx) {
      const token = await ctx.sim.mintToken(ctx.secrets[0] as string, 2_592_000);
      const { url, child } = await startNginxRelay({
        upstream: ctx.sim.restppUrl,
        token,
        logFile: join(ctx.options.outDir, 'nginx.log'),
        cwd: ctx.root,
      });
      const credentials = { header: 'cookie', values: ctx.secrets.map((_s, i) => `bench=${i}`) };
      return { url: `${url}/api/echo`, headers: {}, credentials, child, redisPrefix: null };
    },
  },
  // Per-principal quotas on, so high that they never refuse: what their Redis calls cost per request.
  bff('bff-quota', '(i) tigergraph-bff, Redis, quotas on (never refusing)', 'redis', {
    QUOTA_RATE: '1000000',
    QUOTA_CONCURRENCY: '10000',
  }),
  // (d) with OpenTelemetry on, every request sampled, spans exported over OTLP/HTTP to a sink process.
  {
    id: 'bff-traced',
    label: '(h) tigergraph-bff, Redis, tracing at 100 %',
    async start(ctx) {
      const port = await freePort();
      await script(ctx, 'otlp-sink', 'otlp-sink.js', { PORT: String(port) }, port);
      return bff('bff-traced', '', 'redis', {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_TRACES_SAMPLER: 'always_on',
      }).start(ctx);
    },
  },
];

/**
 * The floor's other undici interfaces (bench/floor-relay.ts), run only when BENCH_ONLY names them: the
 * evidence that (b) is the cheapest Node.js relay found (docs/performance.md, "The floor's variants").
 */
export const FLOOR_VARIANTS: Subject[] = [
  floor('floor-stream', '(b2) floor variant: undici stream', 'stream'),
  floor('floor-request', '(b3) floor variant: undici request + pipeline (the floor before issue 46)', 'request'),
  floor('floor-defaults', "(b4) floor variant: dispatch, V8's default heap flags", 'dispatch', []),
];

/** The subjects of a run: all of SUBJECTS, plus another build's BFF when BENCH_COMPARE_DIST names one. */
export function subjectsFor(options: BenchOptions): Subject[] {
  const named = FLOOR_VARIANTS.filter((s) => options.only?.includes(s.id));
  const chosen = [
    ...SUBJECTS.filter((s) => s.id === 'direct' || options.only === null || options.only.includes(s.id)),
    ...named,
  ];
  if (options.compareDist === null) return chosen;
  return [...chosen, bff('bff-compare', '(d*) tigergraph-bff, Redis, other build', 'redis', {}, options.compareDist)];
}

export function bff(
  id: string,
  label: string,
  store: 'redis' | 'memory',
  extraEnv: Record<string, string>,
  dist?: string,
): Subject {
  return {
    id,
    label,
    async start(ctx) {
      const port = await freePort();
      const prefix = `bench-${id}:${randomBytes(4).toString('hex')}:`;
      const env: Record<string, string> = {
        PORT: String(port),
        HOST: '127.0.0.1',
        METRICS_PORT: '0', // subjects run side by side: no fixed metrics port to collide on
        TG_RESTPP_URL: ctx.sim.restppUrl,
        TG_GSQL_URL: ctx.sim.gsqlUrl,
        TG_VERSION: '3.9.3',
        SESSION_SECRET: randomBytes(24).toString('hex'),
        SESSION_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
        COOKIE_SECURE: 'false',
        LOG_LEVEL: ctx.options.logLevel,
        LOGIN_RATE_LIMIT: '100000',
        // Every benchmark user logs in from this one address (and the soak keeps logging in).
        LOGIN_ADDRESS_BUDGET: '100000',
        // autocannon starts every connection at the first prepared request, so at first all of them send
        // the same session's requests at once; the limit's cost is measured, its 429s would skew the run.
        RELAY_SESSION_CONCURRENCY: String(Math.max(16, ctx.options.connections)),
        ...(store === 'redis' && { REDIS_URL: ctx.redisUrl, REDIS_PREFIX: prefix }),
        ...extraEnv,
      };
      const profile = ctx.options.profile
        ? ['--cpu-prof', `--cpu-prof-dir=${join(ctx.options.outDir, 'profiles', id)}`]
        : [];
      const child = await startChild({
        name: id,
        command: process.execPath,
        args: [
          ...profile,
          ...(id === 'bff-compare' ? ctx.options.compareNodeArgs : ctx.options.bffNodeArgs),
          join(dist ?? join(ctx.root, 'dist'), 'main.js'),
        ],
        env: {
          PATH: process.env.PATH ?? '',
          ...(ctx.options.bffNodeOptions && { NODE_OPTIONS: ctx.options.bffNodeOptions }),
          ...env,
        },
        cwd: ctx.root,
        logFile: join(ctx.options.outDir, `${id}.log`),
        ready: answers(`http://127.0.0.1:${port}/healthz`),
      });
      const base = `http://127.0.0.1:${port}`;
      const cookies = await loginAll(ctx.secrets, (secret) =>
        login(`${base}/auth/login`, { secret, graph: 'social' }, XHR),
      );
      const credentials = { header: 'cookie', values: cookies };
      return {
        url: `${base}/api/echo`,
        headers: XHR,
        credentials,
        child,
        redisPrefix: store === 'redis' ? prefix : null,
      };
    },
  };
}

/**
 * (b) and its variants: bench/floor-relay.ts with the service's node flags (BENCH_BFF_NODE_ARGS, the
 * deployed ones by default) unless `nodeArgs` says otherwise, so the floor differs from (d) only in its work.
 */
function floor(id: string, label: string, variant: string, nodeArgs?: string[]): Subject {
  return {
    id,
    label,
    async start(ctx) {
      const token = await ctx.sim.mintToken(ctx.secrets[0] as string, 2_592_000);
      const port = await freePort();
      const env = { PORT: String(port), UPSTREAM: ctx.sim.restppUrl, TOKEN: token, FLOOR_VARIANT: variant };
      const child = await script(ctx, id, 'floor-relay.js', env, port, nodeArgs ?? ctx.options.bffNodeArgs);
      const credentials = { header: 'cookie', values: ctx.secrets.map((_s, i) => `bench=${i}`) };
      return { url: `http://127.0.0.1:${port}/api/echo`, headers: {}, credentials, child, redisPrefix: null };
    },
  };
}

function script(
  ctx: SubjectContext,
  name: string,
  file: string,
  env: Record<string, string>,
  port: number,
  nodeArgs: readonly string[] = [],
): Promise<Child> {
  return startChild({
    name,
    command: process.execPath,
    args: [...nodeArgs, join(ctx.root, 'dist-bench', file)],
    env: { PATH: process.env.PATH ?? '', ...env },
    cwd: ctx.root,
    logFile: join(ctx.options.outDir, `${name}.log`),
    ready: answers(`http://127.0.0.1:${port}/`),
  });
}

/** Ten logins at a time: enough to be quick, few enough not to trip anything. */
async function loginAll(secrets: string[], one: (secret: string) => Promise<string>): Promise<string[]> {
  const cookies: string[] = [];
  for (let i = 0; i < secrets.length; i += 10) cookies.push(...(await Promise.all(secrets.slice(i, i + 10).map(one))));
  return cookies;
}

async function login(url: string, body: unknown, headers: Record<string, string>): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  const cookie = res.headers.getSetCookie()[0]?.split(';')[0];
  if (res.status !== 200 || !cookie) throw new Error(`login at ${new URL(url).pathname} failed: ${res.status}`);
  return cookie;
}
