import { z } from 'zod';
import {
  boolean,
  cookieName,
  headerName,
  hostPort,
  httpUrl,
  integer,
  list,
  oneOf,
  optional,
  origin,
  pemFile,
  portOrOff,
  text,
  version,
  withDefault,
  type HostPort,
  type KeyIssue,
} from './config/fields.js';
import { forwardHeader, responseHeader } from './config/forward-header.js';
import { redisMode, redisUrl, type RedisConfig } from './config/redis-mode.js';
import { RULES, type RuleValues } from './config/rules.js';
import type { DetachedSettings } from './relay/detached-queries.js';
import {
  encryptionKeys,
  generateEncryptionKeys,
  generateSessionSecrets,
  sessionSecrets,
  type EncryptionKey,
} from './config/secrets.js';
import { trustProxy, type TrustProxy } from './config/trust-proxy.js';
import { nodeEnv } from './config/node-env.js';
import { otlpUrl, ratio, TRACE_SAMPLERS, tracingFrom } from './config/tracing.js';
import type { TracingSettings } from './observability/tracing.js';
import { DEFAULT_FAULT_LOG_INTERVAL_MS } from './observability/fault-log.js';
import { policyFile, queryPolicies, quotaFrom, quotaRules, type QuotaConfig } from './config/quota.js';
import { absoluteUrl, oidcFrom, sameOriginPath, scopes, type OidcConfig } from './config/oidc.js';
import { relayAllowSpec } from './config/relay-allow.js';
import { appDir } from './config/app-dir.js';
import { credentialMapFile, credentialMapOf, type CredentialMap } from './config/credential-map.js';
import { capabilitiesOf } from '@tigergraph-bff/client';
import { graphName, mcpFrom, mcpResource, type McpConfig } from './config/mcp.js';
import type { QueryGuardrails, QuerySizing, SizingCap } from './relay/query-guardrails.js';

export type { EncryptionKey, HostPort, KeyIssue, OidcConfig, QuotaConfig, RedisConfig, TrustProxy };

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Every key the service reads, with its parser and default (documented in .env.example and docs/configuration.md). */
const FIELDS = {
  // Not trimmed: libraries compare process.env.NODE_ENV byte for byte, so ' production' is not production to them.
  NODE_ENV: withDefault(nodeEnv, 'development', { untrimmed: true }),
  PORT: withDefault(integer(0, 65535), 8080),
  HOST: withDefault(text, '0.0.0.0'),
  METRICS_PORT: withDefault(portOrOff, 9464 as number | null),
  METRICS_HOST: withDefault(text, '127.0.0.1'),
  TG_RESTPP_URL: optional(httpUrl),
  TG_GSQL_URL: optional(httpUrl),
  TG_VERSION: withDefault(version, '3.9.3'),
  TG_TOKEN_LIFETIME: optional(integer(1)),
  TOKEN_REFRESH_BEFORE: withDefault(integer(0), 600),
  TG_CA_FILE: optional(pemFile),
  REDIS_URL: optional(redisUrl),
  REDIS_SENTINELS: optional(list(hostPort)),
  REDIS_SENTINEL_NAME: optional(text),
  REDIS_CLUSTER_NODES: optional(list(hostPort)),
  REDIS_USERNAME: optional(text),
  REDIS_PASSWORD: optional(text),
  REDIS_SENTINEL_PASSWORD: optional(text),
  REDIS_TLS: withDefault(boolean, false),
  REDIS_CA_FILE: optional(pemFile),
  REDIS_COMMAND_TIMEOUT_MS: withDefault(integer(1), 800),
  STORE_FAILOVER_WAIT_MS: withDefault(integer(0), 10_000),
  STORE_FAILOVER_WAITERS: withDefault(integer(0), 1000),
  REDIS_LOGOUT_REPLICA_WAIT_MS: optional(integer(0)),
  SESSION_CACHE: withDefault(boolean, true),
  SESSION_CACHE_MAX: withDefault(integer(0), 10_000),
  SESSION_CACHE_TTL_MS: withDefault(integer(1), 60_000),
  REDIS_PREFIX: withDefault(text, 'tgbff:'),
  SESSION_SECRET: optional(sessionSecrets),
  SESSION_ENCRYPTION_KEYS: optional(encryptionKeys),
  SESSION_IDLE_TIMEOUT: withDefault(integer(1), 1800),
  SESSION_ABSOLUTE_TIMEOUT: withDefault(integer(1), 43_200),
  COOKIE_SECURE: withDefault(boolean, true),
  COOKIE_NAME: optional(cookieName),
  ALLOWED_ORIGINS: withDefault(list(origin), []),
  CSRF_HEADER: withDefault(headerName, 'x-requested-with'),
  RELAY_ALLOW: optional(relayAllowSpec),
  UPSTREAM_TIMEOUT_MS: withDefault(integer(1), 30_000),
  MAX_BODY_BYTES: withDefault(integer(1), 1_048_576),
  RELAY_COMPRESSED_BODIES: withDefault(boolean, false),
  UPSTREAM_CONNECTIONS: withDefault(integer(1, 65_535), 128),
  RELAY_SESSION_CONCURRENCY: withDefault(integer(1, 65_535), 16),
  RELAY_CREDENTIAL_CONCURRENCY: withDefault(integer(1, 65_535), 64),
  RELAY_MAX_RESPONSE_BYTES: withDefault(integer(1), 67_108_864),
  RELAY_COALESCE: withDefault(boolean, false),
  RELAY_COALESCE_WAITERS: withDefault(integer(2, 65_535), 64),
  RELAY_COALESCE_MAX_BYTES: withDefault(integer(1), 268_435_456),
  OVERLOAD_MAX_IN_FLIGHT: withDefault(integer(0, 1_000_000), 0),
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: optional(integer(0, 60_000)),
  QUERY_TIMEOUT_MAX_MS: optional(integer(1)),
  QUERY_TIMEOUT_DEFAULT_MS: withDefault(integer(1), 16_000),
  QUERY_THREAD_LIMIT_MAX: optional(integer(1, 65_535)),
  QUERY_THREAD_LIMIT_DEFAULT: optional(integer(1, 65_535)),
  QUERY_MEMORY_LIMIT_MAX_MB: optional(integer(1, 16_777_216)),
  QUERY_MEMORY_LIMIT_DEFAULT_MB: optional(integer(1, 16_777_216)),
  QUOTA_RATE: withDefault(integer(0, 1_000_000), 0),
  QUOTA_WINDOW: withDefault(integer(1, 86_400), 1),
  QUOTA_BURST: withDefault(integer(0, 1_000_000), 0),
  QUOTA_BURST_WINDOW: withDefault(integer(1, 86_400), 10),
  QUOTA_CONCURRENCY: withDefault(integer(0, 65_535), 0),
  QUOTA_LEASE_MS: withDefault(integer(1000, 600_000), 15_000),
  QUOTA_POLICY_FILE: optional(policyFile),
  RELAY_FORWARD_HEADERS: withDefault(list(forwardHeader), []),
  RELAY_RESPONSE_HEADERS: withDefault(list(responseHeader), []),
  DETACHED_QUERIES: withDefault(boolean, false),
  DETACHED_QUERY_TTL: withDefault(integer(1, 604_800), 3600),
  DETACHED_QUERIES_PER_PRINCIPAL: withDefault(integer(1, 100_000), 100),
  HEADERS_TIMEOUT_MS: withDefault(integer(1000, 600_000), 10_000),
  REQUEST_TIMEOUT_MS: withDefault(integer(1000, 3_600_000), 30_000),
  PASSWORD_LOGIN: withDefault(boolean, false),
  ADMIN_ROUTES: withDefault(boolean, false),
  SESSION_OPERATORS: withDefault(list(text), ['tigergraph']),
  OPENAPI_ROUTE: optional(boolean),
  APP_DIR: optional(appDir),
  DEMO_CONSOLE: optional(boolean),
  TRUST_PROXY: withDefault(trustProxy, false),
  CLIENT_IPV6_PREFIX: withDefault(integer(1, 128), 64),
  LOG_LEVEL: withDefault(oneOf(LOG_LEVELS), 'info'),
  LOG_FLUSH_MS: withDefault(integer(0, 10_000), 250),
  LOG_USER_NAMES: withDefault(oneOf(['plain', 'hashed'] as const), 'plain'),
  FAULT_LOG_INTERVAL_MS: withDefault(integer(1000, 3_600_000), DEFAULT_FAULT_LOG_INTERVAL_MS),
  AUDIT_LOG_FILE: optional(text),
  SHUTDOWN_TIMEOUT_MS: withDefault(integer(0), 10_000),
  LOGIN_RATE_LIMIT: withDefault(integer(1), 10),
  LOGIN_RATE_WINDOW: withDefault(integer(1), 60),
  LOGIN_USER_LIMIT: withDefault(integer(1), 100),
  LOGIN_BACKOFF_AFTER: withDefault(integer(1), 5),
  LOGIN_BACKOFF_MAX: withDefault(integer(1, 86_400), 300),
  LOGIN_ADDRESS_BUDGET: withDefault(integer(1), 120),
  LOGIN_CREDENTIAL_BUDGET: withDefault(integer(1), 60),
  ADMIN_CREDENTIAL_BUDGET: withDefault(integer(1), 60),
  SESSIONS_PER_CREDENTIAL: withDefault(integer(1, 10_000), 100),
  SESSIONS_ROUTE_BUDGET: withDefault(integer(1), 30),
  TOKEN_LEASE_TTL_MS: withDefault(integer(100, 600_000), 5000),
  TOKEN_SWEEP_INTERVAL_MS: withDefault(integer(100, 3_600_000), 30_000),
  OTEL_EXPORTER_OTLP_ENDPOINT: optional(otlpUrl),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optional(otlpUrl),
  OTEL_SERVICE_NAME: withDefault(text, 'tigergraph-bff'),
  OTEL_TRACES_SAMPLER: withDefault(oneOf(TRACE_SAMPLERS), 'parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: withDefault(ratio, 1),
  OTEL_TRACES_EXPORTER: withDefault(oneOf(['otlp', 'none'] as const), 'otlp'),
  OTEL_SDK_DISABLED: withDefault(boolean, false),
  TRACE_TRUST_PARENT: withDefault(boolean, false),
  OIDC_ISSUER: optional(absoluteUrl),
  OIDC_CLIENT_ID: optional(text),
  OIDC_CLIENT_SECRET: optional(text),
  OIDC_REDIRECT_URI: optional(absoluteUrl),
  OIDC_SCOPES: withDefault(scopes, 'openid profile offline_access'),
  OIDC_AUDIENCE: optional(text),
  OIDC_POST_LOGIN_PATH: withDefault(sameOriginPath, '/'),
  OIDC_REFRESH_BEFORE: withDefault(integer(0, 86_400), 60),
  OIDC_CONNECTIONS: withDefault(integer(1, 1024), 16),
  BACKCHANNEL_ADDRESS_BUDGET: withDefault(integer(1), 60),
  OIDC_CREDENTIAL_MAP: optional(credentialMapFile),
  MCP_RESOURCE: optional(mcpResource),
  MCP_GRAPHS: withDefault(list(graphName), []),
  MCP_SESSIONS_PER_PRINCIPAL: withDefault(integer(1, 1000), 4),
  MCP_SESSION_IDLE_TIMEOUT: withDefault(integer(10, 86_400), 1800),
  MCP_MAX_BODY_BYTES: withDefault(integer(1024, 16_777_216), 262_144),
};

export type ConfigKey = keyof typeof FIELDS;

/** Every environment key the service reads (.env.example documents each). */
export const CONFIG_KEYS: readonly ConfigKey[] = Object.freeze(Object.keys(FIELDS) as ConfigKey[]);

/** What each key is when unset, from its parser (undefined: no default). For the generated docs. */
export function configDefault(key: ConfigKey): unknown {
  const parsed = (FIELDS[key] as z.ZodType).safeParse(undefined);
  return parsed.success ? parsed.data : undefined;
}

type Values = { [K in keyof typeof FIELDS]: z.output<(typeof FIELDS)[K]> };

export interface Config {
  readonly nodeEnv: string;
  readonly production: boolean;
  readonly port: number;
  readonly host: string;
  /** The Prometheus listener (GET /metrics only); port null when METRICS_PORT=off. */
  readonly metrics: Readonly<{ port: number | null; host: string }>;
  readonly tigergraph: Readonly<{
    restppUrl?: string;
    gsqlUrl?: string;
    version: string;
    tokenLifetimeSeconds: number;
    refreshBeforeSeconds: number;
    /** Cross-instance refresh lease, renewed while the holder's upstream call runs. */
    leaseTtlMs: number;
    /** How often an instance looks for ended sessions whose token to delete (TOKEN_SWEEP_INTERVAL_MS). */
    sweepIntervalMs: number;
    /** PEM text of TG_CA_FILE, read once at start-up. */
    ca?: string;
  }>;
  /** True when no TG_RESTPP_URL is set outside production: main runs the simulator in-process. */
  readonly simulator: boolean;
  readonly redis: Readonly<RedisConfig>;
  readonly session: Readonly<{
    /** First signs, all verify. */
    secrets: readonly string[];
    /** First encrypts, all decrypt. */
    encryptionKeys: readonly Readonly<EncryptionKey>[];
    idleTimeoutSeconds: number;
    absoluteTimeoutSeconds: number;
    cookieName: string;
    cookieSecure: boolean;
    /** Outside production: plain http to localhost counts as secure for the cookie (browsers agree). */
    loopbackIsSecure: boolean;
  }>;
  readonly allowedOrigins: readonly string[];
  /** Lower-case header name. */
  readonly csrfHeader: string;
  readonly trustProxy: TrustProxy;
  /** Every IPv6 client address of one prefix of this length counts as one address for per-address limits. */
  readonly clientIpv6Prefix: number;
  /** RELAY_ALLOW as written, checked by the loader (config/relay-allow.ts); the relay parses it. Undefined when unset. */
  readonly relayAllow?: string;
  /** From a relayed request's arrival to the answer's headers, queue wait included. */
  readonly upstreamTimeoutMs: number;
  /** Cap on every request body; a relayed body over it is refused with 413 before it goes upstream. */
  readonly maxBodyBytes: number;
  /** RELAY_COMPRESSED_BODIES: request bodies with a Content-Encoding are inflated to check their size, not refused. */
  readonly relayCompressedBodies: boolean;
  /** Size of the keep-alive pool to the data server. */
  readonly upstreamConnections: number;
  /** Relayed requests one session may have in flight on one instance; more get 429. */
  readonly relaySessionConcurrency: number;
  /** Relayed requests all sessions of one credential may have in flight on one instance; more get 429. */
  readonly relayCredentialConcurrency: number;
  /** OVERLOAD_*: refuse requests with 503 overloaded past these (0 = that limit is off). */
  readonly overload: { readonly maxInFlight: number; readonly maxEventLoopDelayMs: number };
  /** Per-principal quotas across instances (rates, concurrency, the policy file's overrides). */
  readonly quota: QuotaConfig;
  /** Caps (and defaults) of the GSQL-TIMEOUT and RESPONSE-LIMIT each relayed request carries. */
  readonly queryGuardrails: QueryGuardrails;
  /** A relayed answer longer than this is refused (declared length) or cut (streamed). */
  readonly maxResponseBytes: number;
  /** RELAY_COALESCE: identical concurrent reads of one principal share one TigerGraph call; absent when off. */
  readonly relayCoalescing?: Readonly<{
    maxWaiters: number;
    maxBufferedBytes: number;
    /** `graph/query` of the installed queries whose POSTs may be shared (policy file `readOnly: true`). */
    readOnlyQueries: ReadonlySet<string>;
  }>;
  /** Browser headers forwarded upstream besides the default allowlist (lower-case). */
  readonly relayForwardHeaders: readonly string[];
  /** Upstream answer headers passed to the browser besides the default allowlist (lower-case). */
  readonly relayResponseHeaders: readonly string[];
  /** DETACHED_QUERIES: GSQL-ASYNC starts recorded per principal, their ids relayed only for their owner. */
  readonly detachedQueries?: DetachedSettings;
  /** Node's headersTimeout and requestTimeout on the listening server: slow clients lose their request. */
  readonly clientTimeouts: Readonly<{ headersMs: number; requestMs: number }>;
  readonly passwordLogin: boolean;
  readonly adminRoutes: boolean;
  /** TigerGraph users who may list and end any principal's sessions through /admin/sessions (SESSION_OPERATORS). */
  readonly sessionOperators: readonly string[];
  /**
   * GET /openapi.json. `required` (OPENAPI_ROUTE=true): a missing document stops the start; `if-present`
   * (the default outside production): served when the package has docs/openapi.yaml; `off` (the default in
   * production, or OPENAPI_ROUTE=false).
   */
  readonly openapiRoute: 'required' | 'if-present' | 'off';
  /** APP_DIR: a built single-page app served at `/` (absolute path); undefined serves none. */
  readonly appDir?: string;
  /** The demo console at `/` (DEMO_CONSOLE; off by default when APP_DIR is set). */
  readonly demoConsole: boolean;
  readonly logLevel: (typeof LOG_LEVELS)[number];
  /** Log lines are written in batches, at the latest this often; 0 writes each line at once. */
  readonly logFlushMs: number;
  /** One log line per fault cause per this many ms, with a count of the repeats (observability/fault-log.ts). */
  readonly faultLogIntervalMs: number;
  /** `hashed`: access lines name users by a keyed hash (observability/log-ids.ts), never by name. */
  readonly logUserNames: 'plain' | 'hashed';
  /** The audit trail's file (AUDIT_LOG_FILE); undefined writes it to stdout. */
  readonly auditLogFile?: string;
  /** OpenTelemetry traces (OTEL_*); null when off, the default. */
  readonly tracing: TracingSettings | null;
  readonly shutdownTimeoutMs: number;
  /**
   * Failed credential checks (login and admin Basic auth): `max` per address and `userMax` per user name
   * per window; one user from one address waits 1 s, 2 s, 4 s… (up to backoffMaxSeconds) after backoffAfter.
   */
  readonly loginRateLimit: Readonly<{
    max: number;
    windowSeconds: number;
    userMax: number;
    backoffAfter: number;
    backoffMaxSeconds: number;
  }>;
  /**
   * Logins, successful ones included, per window (loginRateLimit.windowSeconds): `perAddress` from one
   * client address, `perCredential` with one secret or user name; `adminPerCredential` successful /admin
   * Basic auths of one TigerGraph user; `backchannelPerAddress` back-channel logouts from one address
   * (those whose token verifies are taken back).
   */
  readonly loginBudget: Readonly<{
    perAddress: number;
    perCredential: number;
    adminPerCredential: number;
    backchannelPerAddress: number;
  }>;
  /** Live sessions of one credential (secret, TigerGraph user, IdP subject); a new login ends the oldest beyond it. */
  readonly sessionsPerCredential: number;
  /** Calls of GET and DELETE /auth/sessions… one principal may make per loginRateLimit.windowSeconds (429 beyond). */
  readonly sessionsRouteBudget: number;
  /** Single sign-on; present when OIDC_ISSUER is set. */
  readonly oidc?: OidcConfig;
  /** The MCP endpoint for AI agents (docs/mcp.md); present when MCP_RESOURCE is set. */
  readonly mcp?: McpConfig;
  /** Keys generated at random for this start (outside production only), so main can warn. */
  readonly generated: readonly string[];
}

/** Start-up refusal: lists every bad key as `KEY: what is wrong`, never a value. */
export class ConfigError extends Error {
  readonly issues: readonly KeyIssue[];

  constructor(issues: readonly KeyIssue[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  ${i.key}: ${i.message}`).join('\n')}`);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

function parseFields(env: Record<string, string | undefined>) {
  const values: Record<string, unknown> = {};
  const issues: KeyIssue[] = [];
  const bad = new Set<string>();
  for (const [key, schema] of Object.entries(FIELDS)) {
    const result = (schema as z.ZodType).safeParse(env[key]);
    if (result.success) values[key] = result.data;
    else {
      bad.add(key);
      for (const issue of result.error.issues) issues.push({ key, message: issue.message });
    }
  }
  // Rules only read keys that parsed, so the partial record is safe to treat as complete for them.
  return { values: values as Values, issues, bad };
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  const { values: v, issues, bad } = parseFields(env);
  for (const rule of RULES) {
    if (rule.keys.every((k) => !bad.has(k))) issues.push(...rule.check(v as RuleValues));
  }
  const quotaKeys = Object.keys(FIELDS).filter((k) => k.startsWith('QUOTA_'));
  const quotaIssue = quotaKeys.some((k) => bad.has(k)) ? undefined : quotaRules(v).issue;
  if (quotaIssue !== undefined) issues.push({ key: 'QUOTA_POLICY_FILE', message: quotaIssue });
  const mapped = credentialMapIn(v, env, bad);
  for (const message of mapped.issues) issues.push({ key: 'OIDC_CREDENTIAL_MAP', message });
  const redisKeys = Object.keys(FIELDS).filter((k) => k.startsWith('REDIS_'));
  const { redis, issues: redisIssues } = redisKeys.some((k) => bad.has(k))
    ? { redis: undefined, issues: [] }
    : redisMode(v);
  issues.push(...redisIssues);
  if (issues.length > 0 || redis === undefined) throw new ConfigError(issues);
  return deepFreeze(build(v, redis, mapped.map));
}

/** OIDC_CREDENTIAL_MAP's rules, checked against the environment (referenced variables) and TG_VERSION. */
function credentialMapIn(v: Values, env: Record<string, string | undefined>, bad: Set<string>) {
  if (v.OIDC_CREDENTIAL_MAP === undefined || bad.has('OIDC_CREDENTIAL_MAP') || bad.has('TG_VERSION'))
    return { issues: [] };
  if (v.OIDC_ISSUER === undefined) return { issues: ['needs single sign-on: set OIDC_ISSUER (and the other OIDC_*)'] };
  return credentialMapOf(v.OIDC_CREDENTIAL_MAP, env, { passwordTokens: capabilitiesOf(v.TG_VERSION).passwordTokens });
}

/** A sizing header's cap (rules.ts made sure a default comes with a max, and is at most it); none: not forwarded. */
function sizingCap<K extends 'threads' | 'memoryMb'>(
  key: K,
  max: number | undefined,
  fallback: number | undefined,
): { [P in K]?: SizingCap } {
  return max === undefined ? {} : ({ [key]: { max, default: fallback ?? max } } as { [P in K]?: SizingCap });
}

/** The policy file's per-query thread and memory caps, keyed `graph/query`; absent when it names none. */
function perQuerySizing(v: Values): { perQuery?: ReadonlyMap<string, QuerySizing> } {
  const sized = queryPolicies(v).filter((q) => q.threads !== undefined || q.memoryMb !== undefined);
  if (sized.length === 0) return {};
  return {
    perQuery: new Map(
      sized.map((q) => [
        `${q.graph}/${q.query}`,
        { ...(q.threads && { threads: q.threads }), ...(q.memoryMb && { memoryMb: q.memoryMb }) },
      ]),
    ),
  };
}

function build(v: Values, redis: RedisConfig, credentialMap: CredentialMap | undefined): Config {
  const production = v.NODE_ENV === 'production';
  const generated: string[] = [];
  const secrets = v.SESSION_SECRET ?? (generated.push('SESSION_SECRET'), generateSessionSecrets());
  const keys = v.SESSION_ENCRYPTION_KEYS ?? (generated.push('SESSION_ENCRYPTION_KEYS'), generateEncryptionKeys());
  return {
    nodeEnv: v.NODE_ENV,
    production,
    port: v.PORT,
    host: v.HOST,
    metrics: { port: v.METRICS_PORT, host: v.METRICS_HOST },
    tigergraph: {
      ...(v.TG_RESTPP_URL !== undefined && { restppUrl: v.TG_RESTPP_URL }),
      ...(v.TG_GSQL_URL !== undefined && { gsqlUrl: v.TG_GSQL_URL }),
      version: v.TG_VERSION,
      // No token outlives the longest session it can serve (a session's tokens die with it anyway).
      tokenLifetimeSeconds: v.TG_TOKEN_LIFETIME ?? v.SESSION_ABSOLUTE_TIMEOUT,
      // A derived lifetime may be short (a short session); the default margin must not exceed it.
      refreshBeforeSeconds:
        v.TG_TOKEN_LIFETIME === undefined
          ? Math.min(v.TOKEN_REFRESH_BEFORE, Math.floor(v.SESSION_ABSOLUTE_TIMEOUT / 2))
          : v.TOKEN_REFRESH_BEFORE,
      leaseTtlMs: v.TOKEN_LEASE_TTL_MS,
      sweepIntervalMs: v.TOKEN_SWEEP_INTERVAL_MS,
      ...(v.TG_CA_FILE !== undefined && { ca: v.TG_CA_FILE }),
    },
    simulator: v.TG_RESTPP_URL === undefined && !production,
    redis,
    session: {
      secrets,
      encryptionKeys: keys,
      idleTimeoutSeconds: v.SESSION_IDLE_TIMEOUT,
      absoluteTimeoutSeconds: v.SESSION_ABSOLUTE_TIMEOUT,
      // The __Host- prefix is only honoured by browsers on Secure cookies.
      cookieName: v.COOKIE_NAME ?? (v.COOKIE_SECURE ? '__Host-tgbff' : 'tgbff'),
      cookieSecure: v.COOKIE_SECURE,
      loopbackIsSecure: v.COOKIE_SECURE && !production,
    },
    allowedOrigins: v.ALLOWED_ORIGINS,
    csrfHeader: v.CSRF_HEADER,
    trustProxy: v.TRUST_PROXY,
    clientIpv6Prefix: v.CLIENT_IPV6_PREFIX,
    ...(v.RELAY_ALLOW !== undefined && { relayAllow: v.RELAY_ALLOW }),
    upstreamTimeoutMs: v.UPSTREAM_TIMEOUT_MS,
    maxBodyBytes: v.MAX_BODY_BYTES,
    relayCompressedBodies: v.RELAY_COMPRESSED_BODIES,
    upstreamConnections: v.UPSTREAM_CONNECTIONS,
    relaySessionConcurrency: v.RELAY_SESSION_CONCURRENCY,
    relayCredentialConcurrency: v.RELAY_CREDENTIAL_CONCURRENCY,
    overload: {
      maxInFlight: v.OVERLOAD_MAX_IN_FLIGHT,
      // Watched in production only by default: elsewhere (tests, development) the service often shares its
      // process and loop with other work (a test's own synchronous set-up, a build), whose pauses are not
      // overload; the in-process test suite saw 503s at 100 ms.
      maxEventLoopDelayMs: v.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS ?? (production ? 200 : 0),
    },
    quota: quotaFrom(v),
    queryGuardrails: {
      // A query TigerGraph runs past the time the relay waits for it would burn the database for nobody.
      timeoutMaxMs: v.QUERY_TIMEOUT_MAX_MS ?? v.UPSTREAM_TIMEOUT_MS,
      timeoutDefaultMs: Math.min(v.QUERY_TIMEOUT_DEFAULT_MS, v.QUERY_TIMEOUT_MAX_MS ?? v.UPSTREAM_TIMEOUT_MS),
      responseLimitMax: v.RELAY_MAX_RESPONSE_BYTES,
      ...sizingCap('threads', v.QUERY_THREAD_LIMIT_MAX, v.QUERY_THREAD_LIMIT_DEFAULT),
      ...sizingCap('memoryMb', v.QUERY_MEMORY_LIMIT_MAX_MB, v.QUERY_MEMORY_LIMIT_DEFAULT_MB),
      ...perQuerySizing(v),
    },
    maxResponseBytes: v.RELAY_MAX_RESPONSE_BYTES,
    ...(v.RELAY_COALESCE && {
      relayCoalescing: {
        maxWaiters: v.RELAY_COALESCE_WAITERS,
        maxBufferedBytes: v.RELAY_COALESCE_MAX_BYTES,
        readOnlyQueries: new Set(queryPolicies(v).flatMap((q) => (q.readOnly ? [`${q.graph}/${q.query}`] : []))),
      },
    }),
    relayForwardHeaders: v.RELAY_FORWARD_HEADERS,
    relayResponseHeaders: v.RELAY_RESPONSE_HEADERS,
    ...(v.DETACHED_QUERIES && {
      detachedQueries: { ttlMs: v.DETACHED_QUERY_TTL * 1000, cap: v.DETACHED_QUERIES_PER_PRINCIPAL },
    }),
    clientTimeouts: { headersMs: v.HEADERS_TIMEOUT_MS, requestMs: v.REQUEST_TIMEOUT_MS },
    passwordLogin: v.PASSWORD_LOGIN,
    adminRoutes: v.ADMIN_ROUTES,
    sessionOperators: v.SESSION_OPERATORS,
    openapiRoute:
      v.OPENAPI_ROUTE === undefined ? (production ? 'off' : 'if-present') : v.OPENAPI_ROUTE ? 'required' : 'off',
    ...(v.APP_DIR !== undefined && { appDir: v.APP_DIR }),
    demoConsole: v.DEMO_CONSOLE ?? v.APP_DIR === undefined,
    logLevel: v.LOG_LEVEL,
    logFlushMs: v.LOG_FLUSH_MS,
    logUserNames: v.LOG_USER_NAMES,
    faultLogIntervalMs: v.FAULT_LOG_INTERVAL_MS,
    tracing: tracingFrom(v),
    ...(v.AUDIT_LOG_FILE !== undefined && { auditLogFile: v.AUDIT_LOG_FILE }),
    shutdownTimeoutMs: v.SHUTDOWN_TIMEOUT_MS,
    loginRateLimit: {
      max: v.LOGIN_RATE_LIMIT,
      windowSeconds: v.LOGIN_RATE_WINDOW,
      userMax: v.LOGIN_USER_LIMIT,
      backoffAfter: v.LOGIN_BACKOFF_AFTER,
      backoffMaxSeconds: v.LOGIN_BACKOFF_MAX,
    },
    loginBudget: {
      perAddress: v.LOGIN_ADDRESS_BUDGET,
      perCredential: v.LOGIN_CREDENTIAL_BUDGET,
      adminPerCredential: v.ADMIN_CREDENTIAL_BUDGET,
      backchannelPerAddress: v.BACKCHANNEL_ADDRESS_BUDGET,
    },
    sessionsPerCredential: v.SESSIONS_PER_CREDENTIAL,
    sessionsRouteBudget: v.SESSIONS_ROUTE_BUDGET,
    ...oidcFrom(v, credentialMap),
    ...mcpFrom(v),
    generated,
  };
}

/** Buffers cannot be frozen (typed arrays with elements); everything around them is. */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value) || Object.isFrozen(value)) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}
