import type { Config } from '../config.js';
import type { Logger } from '../observability/logger.js';
import type { Audit } from '../observability/audit.js';
import type { SecretDropStore } from '../store/secret-drops.js';
import type { Cipher, LeaseStore } from '../store/types.js';
import { createSecretApi, capabilitiesOf, type SecretClient } from '@tigergraph-bff/client';
import type { Dispatcher } from 'undici';
import { createSecretDropper } from './secret-dropper.js';
import { createSecretSweeper, type SecretSweeper } from './secret-sweeper.js';
import { createSessionSecrets, type SessionSecrets } from './session-secrets.js';

export interface SweepOptions {
  /** How often every instance tries a sweep. Default 30 s. */
  intervalMs?: number;
  /** Retry delay for a drop that failed. Default 60 s. */
  claimMs?: number;
}

/** The admin server as the /admin routes use it (http/routes/admin-routes.ts). */
export interface AdminSurface {
  secrets: SecretClient;
  /** 3.x secrets belong to a graph, so every call there must name one. */
  graphRequired: boolean;
  /** TigerGraph users who may list and end any principal's sessions (SESSION_OPERATORS). */
  sessionOperators: readonly string[];
  /**
   * Whether the admin server shows a secret only masked (no REST secrets API: SHOW SECRET), so the switch by
   * alias matches by the masked form's fingerprint (sessions/secret-masks.ts) rather than by the secret.
   */
  aliasesMasked: boolean;
}

export interface AdminParts {
  passwords?: SessionSecrets;
  admin?: AdminSurface;
  sweeper?: SecretSweeper;
}

export interface AdminPartsDeps {
  config: Config;
  upstream: { restppUrl: string; gsqlUrl?: string; version: string };
  drops: SecretDropStore;
  leases: LeaseStore;
  cipher: Cipher;
  dispatcher: Dispatcher;
  now: () => number;
  instanceId: string;
  logger: Logger;
  sweep?: SweepOptions;
  audit?: Audit;
}

/**
 * What PASSWORD_LOGIN and ADMIN_ROUTES add to the service: the admin-server client, per-session secrets
 * with their sweeper, and the /admin routes. Nothing is built when both are off. The sweeper is started
 * here; the caller stops it before closing the stores.
 */
export function createAdminParts(deps: AdminPartsDeps): AdminParts {
  const { config, upstream, logger } = deps;
  if (!config.passwordLogin && !config.adminRoutes) return {};
  const secrets = createSecretApi({
    restppUrl: upstream.restppUrl,
    ...(upstream.gsqlUrl && { gsqlUrl: upstream.gsqlUrl }),
    version: upstream.version,
    dispatcher: deps.dispatcher,
    timeoutMs: Math.min(config.upstreamTimeoutMs, 10_000),
  });
  // Secrets belong to a graph before 4.1, so a password login must name one there.
  const graphRequired = capabilitiesOf(upstream.version).secretsApi === 'gsql';
  const parts: AdminParts = config.adminRoutes
    ? {
        admin: {
          secrets,
          graphRequired,
          sessionOperators: config.sessionOperators,
          aliasesMasked: graphRequired,
          ...(deps.audit && { audit: deps.audit }),
        },
      }
    : {};
  if (!config.passwordLogin) return parts;

  const dropSecret = createSecretDropper({ secrets, cipher: deps.cipher });
  const intervalMs = deps.sweep?.intervalMs ?? 30_000;
  parts.passwords = createSessionSecrets({
    secrets,
    drops: deps.drops,
    dropSecret,
    cipher: deps.cipher,
    graphRequired,
    now: deps.now,
    logger,
    ...(deps.audit && { audit: deps.audit }),
  });
  parts.sweeper = createSecretSweeper({
    drops: deps.drops,
    leases: deps.leases,
    dropSecret,
    intervalMs,
    claimMs: deps.sweep?.claimMs ?? 60_000,
    leaseTtlMs: Math.max(intervalMs, 5000),
    now: deps.now,
    instanceId: deps.instanceId,
    logger,
  });
  parts.sweeper.start();
  return parts;
}
