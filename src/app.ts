import express from 'express';
import { fileURLToPath } from 'node:url';
import type { DependencyFaults } from './observability/dependency-faults.js';
import type { FaultLog } from './observability/fault-log.js';
import type { Logger } from './observability/logger.js';
import type { Metrics } from './observability/metrics.js';
import type { Tracing } from './observability/tracing.js';
import type { Audit } from './observability/audit.js';
import type { Relay } from './relay/relay.js';
import type { Cipher, Stores } from './store/types.js';
import type { SessionLifecycle } from './sessions/lifecycle.js';
import type { PrincipalSessions } from './sessions/principal-sessions.js';
import type { SessionSecrets } from './admin/session-secrets.js';
import { adminRoutes, type AdminRoutesDeps } from './http/routes/admin-routes.js';
import { createApiLane } from './http/routes/api-lane.js';
import type { UserQuota } from './quota/user-quota.js';
import { authRoutes } from './http/routes/auth-routes.js';
import { createGuessLimiter, type GuessLimits } from './http/limits/guess-limiter.js';
import { createLoginBudget, type BudgetRoute } from './http/limits/login-budget.js';
import { createSessionsBudget } from './http/limits/sessions-budget.js';
import { addressKeyer } from './http/pipeline/address-key.js';
import { credentialIds } from './crypto/credential-id.js';
import { errorHandler, notFoundHandler } from './http/pipeline/error-handler.js';
import { opsRoutes, type ReadinessCheck } from './http/routes/ops-routes.js';
import { appFiles } from './http/routes/app-files-route.js';
import { openapiRoute } from './http/routes/openapi-route.js';
import { createPipeline } from './http/pipeline/pipeline.js';
import type { OverloadGuard } from './http/limits/overload.js';
import { applyRouting } from './http/route-helpers/routing.js';
import { frontDoor, type FrontDoor } from './http/server/front-door.js';
import { sessionGate } from './http/session/session-gate.js';
import { sessionConcurrency } from './http/limits/session-concurrency.js';
import { describePrincipal, type DescribePrincipal } from './http/session/principal.js';
import { logIds } from './observability/log-ids.js';
import { sessionLookup } from './http/session/session-lookup.js';
import { logoutClearsCookie } from './http/route-helpers/logout-clears-cookie.js';
import { BACKCHANNEL_LOGOUT_PATH, oidcRoutes, type OidcRoutesDeps } from './http/routes/oidc-routes.js';
import { mcpRoutes } from './http/routes/mcp-routes.js';
import type { McpEndpoint } from './mcp/mcp-endpoint.js';
import { MCP_PATH } from './mcp/paths.js';

export interface AppSettings {
  cookieName: string;
  cookieSecure: boolean;
  /** Development only: plain http from this machine to a loopback name counts as secure (browsers agree). */
  loopbackIsSecure?: boolean;
  sessionSecrets: readonly string[];
  idleTimeoutSec: number;
  absoluteTimeoutSec: number;
  allowedOrigins: readonly string[];
  csrfHeader: string;
  trustProxy: boolean | number | string | readonly string[];
  /** Failed credential checks at login and on /admin Basic auth. */
  guessLimits: GuessLimits;
  /** Relayed requests one session may have in flight on this instance (429 beyond). */
  relaySessionConcurrency: number;
  /** Relayed requests all sessions of one credential may have in flight on this instance (429 beyond). */
  relayCredentialConcurrency: number;
  /** IPv6 client addresses within one prefix of this length count as one address (CLIENT_IPV6_PREFIX). */
  clientIpv6Prefix: number;
  /**
   * Logins per address and per credential per window (the guess limits' window), successful ones included;
   * successful /admin calls per TigerGraph user; back-channel logouts per address.
   */
  loginBudget: { perAddress: number; perCredential: number; adminPerCredential: number; backchannelPerAddress: number };
  /** SESSIONS_ROUTE_BUDGET: calls of GET/DELETE /auth/sessions… per principal per window (the guess limits'). */
  sessionsRouteBudget: number;
  /** Access lines name users by a keyed hash instead of by name (LOG_USER_NAMES=hashed). */
  hashUserNames?: boolean;
  /** Folder of the demo page; null serves none. */
  publicDir?: string | null;
  /** APP_DIR: a built single-page app served at `/` with its page fallback; absent serves none. */
  appDir?: string;
  /** The OpenAPI YAML served as GET /openapi.json (OPENAPI_ROUTE); absent or null serves none. */
  openapiFile?: string | null;
}

export interface AppDeps {
  settings: AppSettings;
  logger: Logger;
  metrics: Metrics;
  stores: Stores;
  cipher: Cipher;
  /** Secret and password logins check their credential with it (a token mint). */
  broker: import('./tokens/token-broker.js').TokenBroker;
  /** How sessions start and end (src/sessions/), built by the composition root. */
  lifecycle: SessionLifecycle;
  /** A principal's sessions, listed and ended (GET/DELETE /auth/sessions, the admin's switch). */
  sessions: PrincipalSessions;
  /** The opaque handle of a session id: the keyed hash the access line and audit trail name it by. */
  sessionHandle: (sid: string) => string;
  relay: Relay;
  readinessChecks: ReadinessCheck[];
  isDraining: () => boolean;
  now?: () => number;
  /** PASSWORD_LOGIN: per-session secrets; absent means password login is off. */
  passwords?: SessionSecrets;
  /** ADMIN_ROUTES: absent means /admin is not mounted (404). */
  admin?: AdminRoutesDeps;
  /** The audit trail (observability/audit.ts); absent means events are dropped. */
  audit?: Audit;
  /** How access lines and audit events name a session (service.ts shares its own); absent: made here. */
  describe?: DescribePrincipal;
  /** OpenTelemetry (OTEL_*): a span per request; absent means tracing is off. */
  tracing?: Tracing;
  /** Expected faults and refusals as one line per cause per interval (observability/fault-log.ts). */
  faults?: FaultLog;
  /** Redis, TigerGraph and IdP faults behind error answers, as one line naming the setting (and /readyz's details). */
  dependencies?: DependencyFaults;
  /** QUOTA_*: per-principal quotas on relayed requests across instances; absent when none is set. */
  quota?: UserQuota;
  /** RELAY_COALESCE: the /api lane names who asks, so identical reads of one principal share a call. */
  coalescing?: boolean;
  /** OVERLOAD_*: the overload guard (http/limits/overload.ts); absent: no overload protection. */
  overload?: OverloadGuard;
  /** OIDC_ISSUER: single sign-on; absent means /auth/oidc/* is not mounted (404). */
  oidc?: Pick<OidcRoutesDeps, 'flow' | 'sessions' | 'verifyLogoutToken' | 'postLoginPath' | 'mapped' | 'signedOut'>;
  /** MCP_RESOURCE: the MCP endpoint for AI agents (src/mcp/); absent means /mcp is not mounted (404). */
  mcp?: McpEndpoint;
}

export const DEFAULT_PUBLIC_DIR = fileURLToPath(new URL('../public', import.meta.url));

/**
 * Builds the service's request listener from its dependencies: the one pipeline, then the /api lane for
 * relayed requests and the Express app for the rest. No env reads, no listen: main.ts and tests do that.
 */
export function createApp(deps: AppDeps): FrontDoor {
  const { settings, stores, metrics, logger, overload } = deps;
  const now = deps.now ?? Date.now;
  const sessionDeps = {
    cipher: deps.cipher,
    tombstones: stores.tombstones,
    absoluteTimeoutSec: settings.absoluteTimeoutSec,
    now,
  };
  // One describer for access lines and audit events alike: the same session hash in both.
  const describe =
    deps.describe ??
    describePrincipal(logIds(settings.sessionSecrets[0] ?? ''), {
      hashUserNames: settings.hashUserNames === true,
    });
  const audit = deps.audit;
  const audited = audit && { audit, describe };
  const pipeline = createPipeline({
    logger,
    metrics,
    allowedOrigins: settings.allowedOrigins,
    csrfHeader: settings.csrfHeader,
    trustProxy: settings.trustProxy,
    cookieName: settings.cookieName,
    cookieSecure: settings.cookieSecure,
    sessions: sessionLookup({
      store: stores.sessionStore,
      cookieName: settings.cookieName,
      secrets: settings.sessionSecrets,
    }),
    gate: sessionGate(sessionDeps),
    describe,
    ...(deps.oidc && { serverToServerPosts: [BACKCHANNEL_LOGOUT_PATH] }),
    // A bearer, never a cookie: nothing a cross-site form could ride on.
    ...(deps.mcp && { bearerPaths: [MCP_PATH] }),
    ...(deps.tracing && { tracing: deps.tracing }),
    ...(deps.faults && { faults: deps.faults }),
    ...(deps.dependencies && { dependencies: deps.dependencies }),
    ...(overload && { overload }),
  });

  // Everything but /api: the pipeline has run (front-door.ts), so only routes and their errors are here.
  const app = express();
  applyRouting(app);
  app.disable('x-powered-by');
  app.use(
    opsRoutes({
      isDraining: deps.isDraining,
      checks: deps.readinessChecks,
      metrics,
      ...(deps.dependencies && { faults: deps.dependencies }),
      ...(overload && { overloaded: () => overload.reason() }),
    }),
  );
  const addressKey = addressKeyer(settings.clientIpv6Prefix);
  const guesses = createGuessLimiter({
    limiter: stores.rateLimiter,
    limits: settings.guessLimits,
    addressKey,
    metrics,
    logger,
    ...(audit && { audit }),
  });
  const budgetOf = (route: BudgetRoute, perAddress: number, perCredential: number) =>
    createLoginBudget({
      limiter: stores.rateLimiter,
      budgets: { perAddress, perCredential, windowSec: settings.guessLimits.windowSec },
      addressKey,
      metrics,
      logger,
      route,
      ...(audit && { audit }),
    });
  const { perAddress, perCredential, adminPerCredential, backchannelPerAddress } = settings.loginBudget;
  const budget = budgetOf('login', perAddress, perCredential);
  const sessionsBudget = createSessionsBudget({
    limiter: stores.rateLimiter,
    perPrincipal: settings.sessionsRouteBudget,
    windowSec: settings.guessLimits.windowSec,
    metrics,
    logger,
    ...(audit && { audit }),
  });
  const credentialIdsOf = credentialIds(settings.sessionSecrets[0] ?? '');
  const auth = authRoutes({
    ...sessionDeps,
    broker: deps.broker,
    tokens: stores.tokens,
    guesses,
    budget,
    credentialIds: credentialIdsOf,
    lifecycle: deps.lifecycle,
    sessions: deps.sessions,
    sessionsBudget,
    sessionHandle: deps.sessionHandle,
    logger,
    metrics,
    cookieName: settings.cookieName,
    cookieSecure: settings.cookieSecure,
    loopbackIsSecure: settings.loopbackIsSecure === true,
    idleTimeoutSec: settings.idleTimeoutSec,
    ...(deps.passwords && { passwords: deps.passwords }),
    oidc: deps.oidc !== undefined,
    oidcCredentialMap: deps.oidc?.mapped !== undefined,
    ...audited,
  });
  app.use('/auth', auth);
  if (deps.oidc) {
    app.use(
      '/auth',
      oidcRoutes({
        ...deps.oidc,
        lifecycle: deps.lifecycle,
        logger,
        metrics,
        cookieName: settings.cookieName,
        cookieSecure: settings.cookieSecure,
        loopbackIsSecure: settings.loopbackIsSecure === true,
        now,
        budget,
        // Per address only: the IdP names no principal before its token is checked.
        backchannelBudget: budgetOf('backchannel', backchannelPerAddress, backchannelPerAddress),
        credentialIds: credentialIdsOf,
        ...audited,
      }),
    );
  }
  // Mounted, not a route: Express routes never match while an error is pending (the logout route's).
  app.use('/auth/logout', logoutClearsCookie({ cookieName: settings.cookieName, cookieSecure: settings.cookieSecure }));
  if (deps.admin) {
    const userIds = logIds(settings.sessionSecrets[0] ?? '');
    const operatorName =
      settings.hashUserNames === true ? (name: string) => userIds('user', name) : (name: string) => name;
    app.use(
      '/admin',
      adminRoutes({
        ...deps.admin,
        guesses,
        // Per TigerGraph user only: a failed Basic auth is a guess, counted per address by the guess limits.
        budget: budgetOf('admin', adminPerCredential, adminPerCredential),
        sessions: deps.sessions,
        credentialIds: credentialIdsOf,
        operatorName,
      }),
    );
  }
  // One per-credential limit for the /api lane and agents' tool calls alike.
  const credentialConcurrency = sessionConcurrency(settings.relayCredentialConcurrency, 'credential', metrics, audit);
  if (deps.mcp) app.use(mcpRoutes(deps.mcp, credentialConcurrency));
  if (settings.openapiFile) app.use(openapiRoute(settings.openapiFile));
  const publicDir = settings.publicDir === undefined ? DEFAULT_PUBLIC_DIR : settings.publicDir;
  if (settings.appDir) app.use(appFiles(settings.appDir));
  else if (publicDir) app.use(express.static(publicDir, { index: 'index.html', fallthrough: true }));
  app.use(notFoundHandler);
  app.use(errorHandler({ logger, ...(deps.dependencies && { faults: deps.dependencies }) }));

  const lane = createApiLane({
    logger,
    ...(deps.dependencies && { dependencies: deps.dependencies }),
    lifecycle: deps.lifecycle,
    relay: deps.relay,
    concurrency: sessionConcurrency(settings.relaySessionConcurrency, 'session', metrics, audit),
    credentialConcurrency,
    credentialIds: credentialIdsOf,
    ...audited,
    ...(deps.quota && { quota: deps.quota }),
    ...(deps.coalescing === true && { coalescing: true }),
  });
  return frontDoor(pipeline, lane, app);
}
