import type { OidcConfig } from '../config/oidc.js';
import type { DependencyFaults } from '../observability/dependency-faults.js';
import { ssoLogger, type Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { Cipher, Stores } from '../store/types.js';
import { createTokenBroker, DEFAULT_TOKEN_READ_CACHE_MS } from '../tokens/token-broker.js';
import { createIdp, type Idp } from './idp.js';
import { createIdpTokenApi } from './idp-token-api.js';
import { createLoginFlow, type LoginFlow } from './login-flow.js';
import { createLogoutTokenVerifier, type LogoutTokenVerifier } from './logout-token.js';
import { createOidcSessions, type OidcSessions } from './oidc-sessions.js';
import type { Audit } from '../observability/audit.js';
import type { TokenClient } from '@tigergraph-bff/client';
import { createMappedSessions, recheckClaims, type MappedSessions } from './mapped-sessions.js';
import { createMappedTokenApi } from './mapped-token-api.js';

export interface OidcParts {
  idp: Idp;
  routes: {
    flow: LoginFlow;
    sessions: OidcSessions;
    verifyLogoutToken: LogoutTokenVerifier;
    postLoginPath: string;
    /** With OIDC_CREDENTIAL_MAP: the rules, and the sessions that use the rules' shared TigerGraph tokens. */
    mapped?: MappedSessions;
  };
}

/**
 * Single sign-on, wired: the IdP (lazy discovery), the login flow, and a second token broker whose upstream
 * is the IdP's token endpoint. Same stores, same single-flight lease and refresh policy as secret tokens
 * (src/tokens); only the calls differ.
 */
export function createOidcParts(deps: {
  settings: OidcConfig;
  allowHttp: boolean;
  stores: Stores;
  cipher: Cipher;
  logger: Logger;
  /** IdP faults as one line per cause per interval, naming OIDC_ISSUER. */
  faults?: DependencyFaults;
  metrics: Metrics;
  now: () => number;
  instanceId: string;
  leaseTtlMs: number;
  absoluteTimeoutSec: number;
  stateGraceMs: number;
  /** A refused IdP access token replaced by a new one (the audit trail's `token.reminted`). */
  onReplaced?: (sid: string) => void;
  /** The credential map's side: TigerGraph's token calls, and the shared tokens' lifetime and refresh margin. */
  tigergraph: { api: TokenClient; lifetimeSec: number; refreshBeforeSec: number; graphsChecked: boolean };
  audit?: Audit;
}): OidcParts {
  const { settings, stores, cipher, now } = deps;
  const logger = ssoLogger(deps.logger);
  const idp = createIdp({ settings, logger, allowHttp: deps.allowHttp, ...(deps.faults && { faults: deps.faults }) });
  const idpBrokerOf = (recheck?: (claims: Record<string, unknown>, scope: string | undefined) => void) =>
    createTokenBroker({
      api: createIdpTokenApi({ idp, now, ...(recheck && { recheck }) }),
      tokens: stores.tokens,
      leases: stores.leases,
      // The IdP decides each token's life (expires_in); this only has to exceed the refresh margin.
      lifetimeSec: Math.max(settings.refreshBeforeSeconds + 1, deps.absoluteTimeoutSec),
      refreshBeforeSec: settings.refreshBeforeSeconds,
      leaseTtlMs: deps.leaseTtlMs,
      now,
      instanceId: deps.instanceId,
      stateGraceMs: deps.stateGraceMs,
      // As for secret tokens: a fresh token is served from this instance's last read; due ones read the store.
      readCacheMs: DEFAULT_TOKEN_READ_CACHE_MS,
      metrics: deps.metrics,
      logger,
      ...(deps.onReplaced && { onReplaced: deps.onReplaced }),
    });
  const broker = idpBrokerOf();
  const map = settings.credentialMap;
  const mapped =
    map === undefined
      ? undefined
      : createMappedSessions({
          map,
          idpBroker: idpBrokerOf((claims, scope) => recheckClaims(map, claims, scope)),
          sharedBroker: createTokenBroker({
            api: createMappedTokenApi({ tg: deps.tigergraph.api, map }),
            tokens: stores.tokens,
            leases: stores.leases,
            lifetimeSec: deps.tigergraph.lifetimeSec,
            refreshBeforeSec: deps.tigergraph.refreshBeforeSec,
            leaseTtlMs: deps.leaseTtlMs,
            now,
            instanceId: deps.instanceId,
            readCacheMs: DEFAULT_TOKEN_READ_CACHE_MS,
            metrics: deps.metrics,
            logger,
            ...(deps.audit && { audit: deps.audit }),
          }),
          lifetimeMs: deps.tigergraph.lifetimeSec * 1000,
          graphsChecked: deps.tigergraph.graphsChecked,
        });
  const sessions = createOidcSessions({
    idp,
    broker,
    tokens: stores.tokens,
    stores: stores.oidc,
    cipher,
    absoluteTimeoutSec: deps.absoluteTimeoutSec,
    logger,
  });
  return {
    idp,
    routes: {
      flow: createLoginFlow({ idp, stores: stores.oidc, cipher, now, ...(map && { map }) }),
      sessions,
      verifyLogoutToken: createLogoutTokenVerifier({ idp, stores: stores.oidc }),
      postLoginPath: settings.postLoginPath,
      ...(mapped && { mapped }),
    },
  };
}
