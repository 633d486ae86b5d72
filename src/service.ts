import { createOverloadGuard } from './http/limits/overload.js';
import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { Agent, Pool } from 'undici';
import { createAdminParts, type SweepOptions } from './admin/admin-parts.js';
import type { SecretSweeper } from './admin/secret-sweeper.js';
import { createApp } from './app.js';
import type { FrontDoor } from './http/server/front-door.js';
import { metricsListener } from './http/server/metrics-listener.js';
import { securityHeaders } from './http/pipeline/security-headers.js';
import { openapiFileFor } from './http/routes/openapi-route.js';
import type { Config } from './config.js';
import type { Logger } from './observability/logger.js';
import type { Tracing } from './observability/tracing.js';
import { silentAudit, type Audit } from './observability/audit.js';
import { dependencyFaults } from './observability/dependency-faults.js';
import { dependencyTargets } from './observability/dependency-targets.js';
import { createFaultLog } from './observability/fault-log.js';
import { logIds } from './observability/log-ids.js';
import { credentialIds } from './crypto/credential-id.js';
import { secretMasks } from './sessions/secret-masks.js';
import { describePrincipal } from './http/session/principal.js';
import { Gauge } from 'prom-client';
import { createMetrics, type Metrics } from './observability/metrics.js';
import { DEFAULT_RELAY_ALLOW, parseRelayAllow } from './relay/allowlist.js';
import { createDetachedQueries } from './relay/detached-queries.js';
import { createCoalescer } from './relay/coalescing.js';
import { createRelay } from './relay/relay.js';
import { adminReachable, reachable } from './relay/upstream-reachable.js';
import { probeAtStart, VERSION_MISMATCH, type StartupProbe } from './relay/upstream-version.js';
import { createCipher } from './crypto/crypto.js';
import { createStores } from './store/create-stores.js';
import type { Stores } from './store/types.js';
import { capabilitiesOf, createTokenApi } from '@tigergraph-bff/client';
import { trustAlso } from './tls-trust.js';
import { createSessionEndSweeper, tokenStateGraceMs, type SessionEndSweeper } from './tokens/session-end-sweeper.js';
import { createTokenBroker, DEFAULT_TOKEN_READ_CACHE_MS, type TokenBroker } from './tokens/token-broker.js';
import type { OidcParts } from './oidc/oidc-parts.js';
import { mappedStrategy } from './sessions/kinds/mapped.js';
import { policyLimits } from './quota/quota-policy.js';
import { createQuotaMetrics } from './quota/quota-metrics.js';
import { createUserQuota, type UserQuota } from './quota/user-quota.js';
import { createSessionLifecycle } from './sessions/lifecycle.js';
import { principalSessions } from './sessions/principal-sessions.js';
import { oidcStrategy } from './sessions/kinds/oidc.js';
import { passwordStrategy } from './sessions/kinds/password.js';
import { secretStrategy } from './sessions/kinds/secret.js';
import { sessionEndsOver } from './tokens/session-ends.js';
import { packageVersion } from './observability/version.js';
import type { McpEndpoint } from './mcp/mcp-endpoint.js';

/** The data-server and admin-server addresses the service talks to (the simulator's when it runs in-process). */
export interface Upstream {
  restppUrl: string;
  gsqlUrl?: string;
  version: string;
}

export interface Service {
  /** The request listener (the /api lane in front of the Express app); `app.listen` as with Express. */
  app: FrontDoor;
  /** The metrics port's request listener: GET /metrics and nothing else (main.ts listens on METRICS_PORT). */
  metricsApp: RequestListener;
  stores: Stores;
  broker: TokenBroker;
  metrics: Metrics;
  /** With PASSWORD_LOGIN: drops the secrets of sessions that ended without a logout (already started). */
  sweeper?: SecretSweeper;
  /** Deletes the tokens of sessions that ended without a logout (already started). */
  tokenSweeper: SessionEndSweeper;
  /** The start-up probe of TigerGraph (reachable, version reported, TG_VERSION checked); already started. */
  startupProbe: Promise<StartupProbe>;
  /** Readiness goes false at once; requests in flight carry on. */
  drain(): void;
  /** Closes Redis and the upstream connections. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  config: Config;
  upstream: Upstream;
  logger: Logger;
  metrics?: Metrics;
  /** The audit trail (observability/audit.ts); none: events are dropped. */
  audit?: Audit;
  now?: () => number;
  instanceId?: string;
  /** Lease TTL for cross-instance refreshes (tests shorten it). */
  leaseTtlMs?: number;
  /** Secret sweeper timing (tests shorten it). */
  secretSweep?: SweepOptions;
}

/**
 * The composition root's wiring, shared by main.ts and the tests: config in, a ready request listener and
 * its closable resources out. Opens connections; reads no environment.
 */
export async function createService(options: ServiceOptions): Promise<Service> {
  const { config, upstream, logger } = options;
  const metrics = options.metrics ?? createMetrics();
  const audit = options.audit ?? silentAudit();
  const sessionIds = logIds(config.session.secrets[0] ?? '');
  // The keyed ids principals are counted and matched by (the alias switch's masks, MCP's people): one hasher.
  const credentialIdsOf = credentialIds(config.session.secrets[0] ?? '');
  // How access lines and audit events name a session and its user: one describer, the same hashes in both.
  const describe = describePrincipal(sessionIds, { hashUserNames: config.logUserNames === 'hashed' });
  const now = options.now ?? Date.now;
  const cipher = createCipher([...config.session.encryptionKeys]);
  // Expected faults (dependencies unreachable, refused origins): one line per cause per interval.
  const faults = createFaultLog({ logger, intervalMs: config.faultLogIntervalMs });
  const dependencies = dependencyFaults(
    faults,
    dependencyTargets({
      redis: config.redis,
      restppUrl: upstream.restppUrl,
      gsqlUrl: upstream.gsqlUrl,
      oidcIssuer: config.oidc?.issuer,
    }),
  );

  // Loaded only when an OTLP endpoint is set: with tracing off, nothing of OpenTelemetry is in the process.
  const tracing: Tracing | undefined = config.tracing
    ? (await import('./observability/otel-tracing.js')).createOtelTracing(config.tracing)
    : undefined;

  const instanceId = options.instanceId ?? randomUUID();
  const stores = await createStores(
    { redis: config.redis, idleTimeoutSeconds: config.session.idleTimeoutSeconds },
    { cipher, metrics, logger, faults: dependencies },
  );
  const { waiting } = stores;
  if (waiting)
    new Gauge({
      name: 'tgbff_store_waiting_commands',
      help: 'Store commands waiting for a lost Redis connection to come back (STORE_FAILOVER_WAIT_MS)',
      registers: [metrics.registry],
      collect() {
        this.set(waiting());
      },
    });

  const tls = config.tigergraph.ca ? trustAlso(config.tigergraph.ca) : undefined;
  const restppOrigin = new URL(upstream.restppUrl).origin;
  const connectTimeout = Math.min(config.upstreamTimeoutMs, 10_000);
  const pool = new Pool(restppOrigin, {
    connections: config.upstreamConnections,
    pipelining: 1,
    connect: { timeout: connectTimeout, ...tls },
  });
  // Readiness has a connection of its own, never one of the relay's: anonymous probes cannot queue ahead
  // of logged-in users (ops-routes.ts shares and caches the probe, about one a second at most).
  const probePool = new Pool(restppOrigin, { connections: 1, pipelining: 1, connect: { timeout: 1000, ...tls } });
  // The admin server (GSQL) is in /readyz when logins go through it: 4.1+ tokens, password logins. Reported,
  // not gating (like the IdP): every replica shares it, and secret logins before 4.1 and live sessions do not
  // need it. Without TG_GSQL_URL it is TG_RESTPP_URL's origin, as the client library takes it.
  const adminUrl = upstream.gsqlUrl ?? upstream.restppUrl;
  const adminProbePool =
    capabilitiesOf(upstream.version).tokenEndpoint === 'gsql' || config.passwordLogin
      ? new Pool(new URL(adminUrl).origin, { connections: 1, pipelining: 1, connect: { timeout: 1000, ...tls } })
      : undefined;
  // One probe of TigerGraph at start: reachable or not, its version, and TG_VERSION checked against it. Not
  // awaited: the service listens either way, and /readyz notes a disagreement once the probe has answered.
  let startupProbe: StartupProbe = { reachable: false, reported: {}, disagreement: null };
  const stopProbe = new AbortController();
  const probed = probeAtStart({
    dispatcher: probePool,
    signal: stopProbe.signal,
    restppUrl: upstream.restppUrl,
    configuredVersion: upstream.version,
    logger,
    faults: dependencies,
  }).then((found) => (startupProbe = found));
  // Token and admin calls, one pool per origin, capped like the relay's: every login attempt costs one,
  // and logins come from clients nobody has verified yet, so without a cap a burst of them (from many
  // addresses) would open as many connections to TigerGraph. Beyond the cap they queue, within their timeout.
  const tokenAgent = new Agent({ connections: config.upstreamConnections, ...(tls && { connect: tls }) });
  const api = createTokenApi({
    restppUrl: upstream.restppUrl,
    ...(upstream.gsqlUrl && { gsqlUrl: upstream.gsqlUrl }),
    version: upstream.version,
    dispatcher: tokenAgent,
    // Half the request's deadline at most: when a refresh stalls, a due but unexpired token still has
    // time left to serve the request that asked for it.
    timeoutMs: Math.min(Math.ceil(config.upstreamTimeoutMs / 2), 10_000),
    now,
  });
  // One event per re-mint after a refusal, written where the mint happened (secret and SSO tokens alike).
  const reminted = (sid: string): void => audit.emit({ event: 'token.reminted', session: sessionIds('session', sid) });
  const broker = createTokenBroker({
    api,
    tokens: stores.tokens,
    leases: stores.leases,
    lifetimeSec: config.tigergraph.tokenLifetimeSeconds,
    refreshBeforeSec: config.tigergraph.refreshBeforeSeconds,
    leaseTtlMs: options.leaseTtlMs ?? config.tigergraph.leaseTtlMs,
    now,
    instanceId,
    readCacheMs: DEFAULT_TOKEN_READ_CACHE_MS,
    stateGraceMs: tokenStateGraceMs(config.tigergraph.sweepIntervalMs),
    metrics,
    logger,
    audit,
    onReplaced: reminted,
    ...(tracing && { tracing }),
  });
  // Loaded only when SSO is on: openid-client and jose cost about 10 MB of RSS in every replica otherwise.
  const oidc: OidcParts | undefined = config.oidc
    ? (await import('./oidc/oidc-parts.js')).createOidcParts({
        settings: config.oidc,
        allowHttp: !config.production,
        faults: dependencies,
        stores,
        cipher,
        logger,
        metrics,
        now,
        instanceId,
        leaseTtlMs: options.leaseTtlMs ?? config.tigergraph.leaseTtlMs,
        absoluteTimeoutSec: config.session.absoluteTimeoutSeconds,
        stateGraceMs: tokenStateGraceMs(config.tigergraph.sweepIntervalMs),
        onReplaced: reminted,
        tigergraph: {
          api,
          lifetimeSec: config.tigergraph.tokenLifetimeSeconds,
          refreshBeforeSec: config.tigergraph.refreshBeforeSeconds,
          graphsChecked: capabilitiesOf(upstream.version).graphWithSecret !== 'none',
        },
        audit,
      })
    : undefined;
  const adminParts = createAdminParts({
    config,
    upstream,
    drops: stores.secretDrops,
    leases: stores.leases,
    cipher,
    dispatcher: tokenAgent,
    now,
    instanceId,
    logger,
    audit,
    ...(options.secretSweep && { sweep: options.secretSweep }),
  });

  // The operator's switch by alias where TigerGraph shows secrets masked only (no REST secrets API): secret
  // logins record a keyed fingerprint of their masked form (sessions/secret-masks.ts). Nothing otherwise.
  const masks =
    adminParts.admin?.aliasesMasked === true
      ? secretMasks({
          records: stores.credentialSessions,
          credentialIds: credentialIdsOf,
          ttlMs: config.session.absoluteTimeoutSeconds * 1000,
        })
      : undefined;
  // How every session starts and ends; one strategy per login kind (src/sessions/kinds/).
  const lifecycle = createSessionLifecycle({
    tokens: stores.tokens,
    tombstones: stores.tombstones,
    sessionStore: stores.sessionStore,
    credentialSessions: stores.credentialSessions,
    sessionRemainingMs: stores.sessionRemainingMs,
    sessionEnds: sessionEndsOver(stores.sessionEnds),
    strategies: {
      secret: secretStrategy({ broker, tokens: stores.tokens, logger }),
      password: passwordStrategy({ broker, tokens: stores.tokens, logger, passwords: adminParts.passwords }),
      oidc: oidcStrategy({ sessions: oidc?.routes.sessions, tokens: stores.tokens, cipher, logger }),
      mapped: mappedStrategy(
        oidcStrategy({ sessions: oidc?.routes.sessions, tokens: stores.tokens, cipher, logger }),
        oidc?.routes.mapped,
      ),
    },
    cipher,
    ...(masks && { secretMasks: masks }),
    sessionsPerCredential: config.sessionsPerCredential,
    idleTimeoutSec: config.session.idleTimeoutSeconds,
    absoluteTimeoutSec: config.session.absoluteTimeoutSeconds,
    now,
    metrics,
    logger,
    audit: { audit, describe, sessionHash: (sid) => sessionIds('session', sid) },
  });
  // A principal's sessions, by the per-credential record the cap keeps; handles are the sessions' log ids.
  const sessionHandle = (sid: string): string => sessionIds('session', sid);
  const sessions = principalSessions({
    credentialSessions: stores.credentialSessions,
    sessionRemainingMs: stores.sessionRemainingMs,
    sessionStore: stores.sessionStore,
    tombstones: stores.tombstones,
    end: (sid, reason, tg, by) => lifecycle.end(sid, reason, tg, by),
    handle: sessionHandle,
    cap: config.sessionsPerCredential,
    idleTimeoutSec: config.session.idleTimeoutSeconds,
    absoluteTimeoutSec: config.session.absoluteTimeoutSeconds,
    now,
  });
  const sweepMs = config.tigergraph.sweepIntervalMs;
  const tokenSweeper = createSessionEndSweeper({
    queue: stores.sessionEnds,
    sessionRemainingMs: stores.sessionRemainingMs,
    // An OIDC session's secret is an IdP refresh token: it goes to the IdP, never to TigerGraph.
    revoke: (end, credential) => lifecycle.sweep(end, credential),
    cipher,
    leases: stores.leases,
    intervalMs: sweepMs,
    claimMs: Math.max(2 * sweepMs, 10_000),
    leaseTtlMs: Math.max(sweepMs, 5000),
    now,
    instanceId,
    logger,
    metrics,
  });
  tokenSweeper.start();
  const relayAllow = parseRelayAllow(config.relayAllow ?? DEFAULT_RELAY_ALLOW);
  const relay = createRelay({
    dispatcher: pool,
    upstreamUrl: upstream.restppUrl,
    allow: relayAllow,
    upstreamTimeoutMs: config.upstreamTimeoutMs,
    maxBodyBytes: config.maxBodyBytes,
    compressedBodies: config.relayCompressedBodies,
    csrfHeader: config.csrfHeader,
    forwardHeaders: config.relayForwardHeaders,
    responseHeaders: config.relayResponseHeaders,
    guardrails: config.queryGuardrails,
    maxResponseBytes: config.maxResponseBytes,
    ...(config.relayCoalescing && {
      coalescer: createCoalescer({
        ...config.relayCoalescing,
        maxResponseBytes: config.maxResponseBytes,
        registry: metrics.registry,
      }),
    }),
    metrics,
    logger,
    ...(tracing && { tracing }),
    ...(config.detachedQueries && {
      detached: createDetachedQueries({
        store: stores.detachedQueries,
        settings: config.detachedQueries,
        now,
        count: (event, n = 1) => metrics.detachedQueries.inc({ event }, n),
      }),
    }),
  });
  // Off unless a QUOTA_* setting or the policy file limits something: it costs Redis calls per request. Its
  // metrics are there either way, at zero (the dashboard shows them).
  const quotaMetrics = createQuotaMetrics(metrics.registry);
  const quota: UserQuota | undefined = policyLimits(config.quota)
    ? createUserQuota({
        policy: config.quota,
        ...(stores.redis && { redis: stores.redis }),
        prefix: config.redis.prefix,
        mount: '/api',
        instanceId,
        metrics: quotaMetrics,
        logger,
        now,
      })
    : undefined;

  // MCP_RESOURCE: AI agents through the same relay, as the person (src/mcp/); loaded only when on.
  const mcp: McpEndpoint | undefined =
    config.mcp && oidc
      ? (await import('./mcp/mcp-endpoint.js')).createMcpEndpoint({
          config: config.mcp,
          idp: oidc.idp,
          ...(oidc.routes.mapped && { mapped: oidc.routes.mapped }),
          relay,
          allow: relayAllow,
          ...(stores.redis && { redis: stores.redis }),
          prefix: config.redis.prefix,
          credentialIds: credentialIdsOf,
          principalHandle: (principal) => sessionIds('user', principal),
          ...(quota && { quota }),
          audit,
          logger,
          now,
          version: packageVersion(),
        })
      : undefined;
  // The event-loop limit is on in production by default (a quiet instance never meets it); both 0: no guard,
  // nothing on the request path.
  const { maxInFlight, maxEventLoopDelayMs } = config.overload;
  const overload =
    maxInFlight > 0 || maxEventLoopDelayMs > 0
      ? createOverloadGuard({ maxInFlight, maxEventLoopDelayMs }, { metrics, logger })
      : undefined;

  let draining = false;
  const app = createApp({
    settings: {
      cookieName: config.session.cookieName,
      cookieSecure: config.session.cookieSecure,
      loopbackIsSecure: config.session.loopbackIsSecure,
      sessionSecrets: config.session.secrets,
      idleTimeoutSec: config.session.idleTimeoutSeconds,
      absoluteTimeoutSec: config.session.absoluteTimeoutSeconds,
      allowedOrigins: config.allowedOrigins,
      csrfHeader: config.csrfHeader,
      trustProxy: config.trustProxy,
      guessLimits: {
        perAddress: config.loginRateLimit.max,
        perUser: config.loginRateLimit.userMax,
        windowSec: config.loginRateLimit.windowSeconds,
        backoffAfter: config.loginRateLimit.backoffAfter,
        backoffMaxSec: config.loginRateLimit.backoffMaxSeconds,
      },
      relaySessionConcurrency: config.relaySessionConcurrency,
      relayCredentialConcurrency: config.relayCredentialConcurrency,
      clientIpv6Prefix: config.clientIpv6Prefix,
      loginBudget: config.loginBudget,
      sessionsRouteBudget: config.sessionsRouteBudget,
      openapiFile: openapiFileFor(config.openapiRoute),
      // The demo console unless it is off (DEMO_CONSOLE=false, or APP_DIR serves the team's own app).
      ...(!config.demoConsole && { publicDir: null }),
      ...(config.appDir !== undefined && { appDir: config.appDir }),
      hashUserNames: config.logUserNames === 'hashed',
    },
    logger,
    metrics,
    stores,
    cipher,
    broker,
    lifecycle,
    sessions,
    sessionHandle,
    relay,
    readinessChecks: [
      ...(config.redis.mode === 'memory'
        ? [{ name: 'store', check: () => stores.ping() }]
        : [{ name: 'store', check: () => stores.ping(), dependency: 'redis' as const }]),
      {
        name: 'upstream',
        check: () => reachable(probePool, upstream.restppUrl),
        dependency: 'tigergraph',
        // TG_VERSION disagreeing with what TigerGraph reported at start: ready, but every login would fail.
        note: () =>
          startupProbe.disagreement === null
            ? undefined
            : { fault: VERSION_MISMATCH, setting: 'TG_VERSION', reason: startupProbe.disagreement },
      },
      ...(adminProbePool
        ? [
            {
              name: 'admin',
              check: () => adminReachable(adminProbePool, adminUrl),
              informational: true,
              dependency: 'tigergraph_admin' as const,
            },
          ]
        : []),
      // While the IdP is down, secret logins and live SSO sessions still work: reported, not gating.
      ...(oidc
        ? [{ name: 'idp', check: () => oidc.idp.ready(), informational: true, dependency: 'idp' as const }]
        : []),
    ],
    isDraining: () => draining,
    now,
    ...(adminParts.passwords && { passwords: adminParts.passwords }),
    ...(adminParts.admin && { admin: { ...adminParts.admin, ...(masks && { masks }) } }),
    ...(oidc && { oidc: { ...oidc.routes, ...(mcp && { signedOut: (subject) => mcp.signedOut(subject) }) } }),
    ...(mcp && { mcp }),
    ...(tracing && { tracing }),
    audit,
    describe,
    faults,
    dependencies,
    ...(quota && { quota }),
    ...(config.relayCoalescing && { coalescing: true }),
    ...(overload && { overload }),
  });

  return {
    app,
    metricsApp: metricsListener({ metrics, logger, securityHeaders: securityHeaders().http }),
    stores,
    broker,
    metrics,
    tokenSweeper,
    startupProbe: probed,
    ...(adminParts.sweeper && { sweeper: adminParts.sweeper }),
    drain() {
      draining = true;
    },
    async close() {
      await Promise.all([adminParts.sweeper?.stop(), tokenSweeper.stop()]);
      quota?.close();
      overload?.close();
      stopProbe.abort();
      await Promise.allSettled([
        stores.close(),
        pool.close(),
        probePool.close(),
        adminProbePool?.close(),
        tokenAgent.close(),
        api.close(),
        oidc?.idp.close(),
      ]);
      faults.close();
      // Last: the spans of the requests that just finished are flushed to the collector.
      await tracing?.shutdown();
    },
  };
}
