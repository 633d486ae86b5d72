import express from 'express';
import { fileURLToPath } from 'node:url';
import type { Logger } from './observability/logger.js';
import type { Metrics } from './observability/metrics.js';
import type { Relay } from './relay/relay.js';
import type { Cipher, Stores } from './store/types.js';
import type { TokenBroker } from './tokens/token-broker.js';
import type { SessionSecrets } from './admin/session-secrets.js';
import { accessLog } from './http/pipeline/access-log.js';
import { adminRoutes, type AdminRoutesDeps } from './http/routes/admin-routes.js';
import { createApiLane } from './http/routes/api-lane.js';
import { authRoutes } from './http/routes/auth-routes.js';
import { createGuessLimiter, type GuessLimits } from './http/routes/guess-limiter.js';
import { errorHandler, notFoundHandler } from './http/pipeline/error-handler.js';
import { opsRoutes, type ReadinessCheck } from './http/routes/ops-routes.js';
import { openapiRoute } from './http/routes/openapi-route.js';
import { requestId } from './http/pipeline/request-id.js';
import { applyRouting } from './http/routes/routing.js';
import { frontDoor, type FrontDoor } from './http/server/front-door.js';
import { sessionGate } from './http/session/require-session.js';
import { corsCheck, csrfCheck, securityHeaders, securityMiddleware } from './http/pipeline/security.js';
import { loopbackCountsAsSecure } from './http/pipeline/loopback-secure.js';
import { sessionMiddleware } from './http/session/session.js';
import { sessionConcurrency } from './http/routes/session-concurrency.js';
import { sessionLookup } from './http/session/session-lookup.js';
import { logoutClearsCookie } from './http/routes/logout-clears-cookie.js';

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
  /** Folder of the demo page; null serves none. */
  publicDir?: string | null;
  /** The OpenAPI YAML served as GET /openapi.json (OPENAPI_ROUTE); absent or null serves none. */
  openapiFile?: string | null;
}

export interface AppDeps {
  settings: AppSettings;
  logger: Logger;
  metrics: Metrics;
  stores: Stores;
  cipher: Cipher;
  broker: TokenBroker;
  relay: Relay;
  readinessChecks: ReadinessCheck[];
  isDraining: () => boolean;
  now?: () => number;
  /** PASSWORD_LOGIN: per-session secrets; absent means password login is off. */
  passwords?: SessionSecrets;
  /** ADMIN_ROUTES: absent means /admin is not mounted (404). */
  admin?: AdminRoutesDeps;
}

export const DEFAULT_PUBLIC_DIR = fileURLToPath(new URL('../public', import.meta.url));

/**
 * Builds the service's request listener from its dependencies: the /api lane for relayed requests and
 * the Express app for the rest. No env reads, no listen: main.ts and tests do that.
 */
export function createApp(deps: AppDeps): FrontDoor {
  const { settings, stores, metrics } = deps;
  const now = deps.now ?? Date.now;
  const app = express();
  applyRouting(app);
  app.disable('x-powered-by');
  app.set('trust proxy', settings.trustProxy);

  app.use(requestId());
  app.use(accessLog({ logger: deps.logger }));
  app.use((_req, res, next) => {
    metrics.activeRequests.inc();
    res.once('close', () => metrics.activeRequests.dec());
    next();
  });
  const security = { allowedOrigins: settings.allowedOrigins, csrfHeader: settings.csrfHeader, trustProxy: settings.trustProxy };
  app.use(...securityMiddleware(security));
  // After the security headers: probes' answers carry them like every other answer (GETs, so no CSRF).
  app.use(opsRoutes({ isDraining: deps.isDraining, checks: deps.readinessChecks }));
  if (settings.loopbackIsSecure) app.use(loopbackCountsAsSecure());

  const session = sessionMiddleware({
    store: stores.sessionStore,
    cookieName: settings.cookieName,
    secrets: settings.sessionSecrets,
    cookieSecure: settings.cookieSecure,
  });
  const guesses = createGuessLimiter({ limiter: stores.rateLimiter, limits: settings.guessLimits, metrics, logger: deps.logger });
  const sessionDeps = {
    cipher: deps.cipher,
    tombstones: stores.tombstones,
    absoluteTimeoutSec: settings.absoluteTimeoutSec,
    now,
  };
  app.use(
    '/auth',
    session,
    authRoutes({
      ...sessionDeps,
      broker: deps.broker,
      tokens: stores.tokens,
      guesses,
      logger: deps.logger,
      metrics,
      cookieName: settings.cookieName,
      cookieSecure: settings.cookieSecure,
      loopbackIsSecure: settings.loopbackIsSecure === true,
      idleTimeoutSec: settings.idleTimeoutSec,
      ...(deps.passwords && { passwords: deps.passwords }),
    }),
  );
  // Mounted, not a route: Express routes never match while an error is pending (the session middleware's).
  app.use('/auth/logout', logoutClearsCookie({ cookieName: settings.cookieName, cookieSecure: settings.cookieSecure }));
  if (deps.admin) app.use('/admin', adminRoutes({ ...deps.admin, guesses }));
  if (settings.openapiFile) app.use(openapiRoute(settings.openapiFile));
  const publicDir = settings.publicDir === undefined ? DEFAULT_PUBLIC_DIR : settings.publicDir;
  if (publicDir) app.use(express.static(publicDir, { index: 'index.html', fallthrough: true }));

  app.use(notFoundHandler);
  app.use(errorHandler({ logger: deps.logger }));

  // /api never reaches the app above: the lane runs the same steps without Express (see api-lane.ts).
  const lane = createApiLane({
    logger: deps.logger,
    metrics,
    securityHeaders: securityHeaders(),
    cors: corsCheck(security),
    csrf: csrfCheck(security),
    trustProxy: settings.trustProxy,
    sessions: sessionLookup({ store: stores.sessionStore, cookieName: settings.cookieName, secrets: settings.sessionSecrets }),
    gate: sessionGate(sessionDeps),
    broker: deps.broker,
    relay: deps.relay,
    concurrency: sessionConcurrency(settings.relaySessionConcurrency),
  });
  return frontDoor(lane, app);
}
