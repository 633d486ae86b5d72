import * as client from 'openid-client';
import { Agent, fetch as undiciFetch } from 'undici';
import { AppError } from '../errors.js';
import type { DependencyFaults } from '../observability/dependency-faults.js';
import type { Logger } from '../observability/logger.js';
import type { OidcConfig } from '../config/oidc.js';

/**
 * The identity provider as the service sees it: discovery done lazily and retried, so an IdP that is down
 * at start-up (or later) makes logins answer 503 idp_unavailable and /readyz say so, never a service
 * stuck unready. openid-client does the protocol; this file only decides when to ask and how to fail.
 */
export interface Idp {
  readonly settings: OidcConfig;
  /** The discovered configuration; rejects with 503 idp_unavailable while discovery fails. */
  configuration(): Promise<client.Configuration>;
  /** For /readyz: resolves once discovery has succeeded (trying it now if it has not). */
  ready(): Promise<void>;
  /**
   * Every call to the IdP goes through this fetch (openid-client's discovery and every call of its
   * configuration; jose's JWKS fetches): one undici Agent, at most OIDC_CONNECTIONS connections per origin.
   */
  readonly fetch: (url: string, init: RequestInit) => Promise<Response>;
  /** Closes the IdP's connections (service close). */
  close(): Promise<void>;
}

export interface IdpOptions {
  settings: OidcConfig;
  /** A failed discovery as a fault line naming OIDC_ISSUER, one per cause per interval. */
  faults?: DependencyFaults;
  logger: Logger;
  /** Plain http to the IdP (development and tests only; refused in production by config). */
  allowHttp: boolean;
  /** Per-call timeout, seconds. */
  timeoutSec?: number;
  /** After a failed discovery, the next attempt waits at least this long (ms). */
  retryMs?: number;
  /** Test seam: the fetch every IdP call uses, instead of the capped agent's. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
}

export const idpUnavailable = (cause?: unknown): AppError =>
  new AppError(
    'idp_unavailable',
    'The identity provider is unavailable; try again shortly',
    cause === undefined ? { dependency: 'idp' } : { cause, dependency: 'idp' },
  );

export function createIdp(options: IdpOptions): Idp {
  const { settings, logger } = options;
  const retryMs = options.retryMs ?? 1000;
  let found: client.Configuration | undefined;
  let pending: Promise<client.Configuration> | undefined;
  let failedAt = -Infinity;
  let lastError: unknown;

  // Code exchanges come from clients nobody has verified yet (anyone can get a pre-login cookie), from many
  // addresses: without a per-origin cap, a burst of them opened a connection each (Node's global fetch has
  // none). Beyond the cap calls queue for a connection, within their timeout.
  const agent = new Agent({ connections: settings.connections });
  const idpFetch =
    options.fetch ??
    ((url: string, init: RequestInit): Promise<Response> =>
      // undici's own fetch with its own agent: Node's built-in fetch is another undici version.
      undiciFetch(url, { ...(init as object), dispatcher: agent }) as unknown as Promise<Response>);

  const discover = async (): Promise<client.Configuration> => {
    const execute = options.allowHttp ? [client.allowInsecureRequests] : [];
    // Given to discovery, the fetch stays the configuration's for every later call (openid-client's rule).
    const config = await client.discovery(
      new URL(settings.issuer),
      settings.clientId,
      undefined,
      client.ClientSecretBasic(settings.clientSecret),
      { execute, timeout: options.timeoutSec ?? 10, [client.customFetch]: idpFetch as client.CustomFetch },
    );
    logger.info({ issuer: settings.issuer }, 'identity provider discovered');
    options.faults?.answered('idp');
    return config;
  };

  function configuration(): Promise<client.Configuration> {
    if (found) return Promise.resolve(found);
    if (!pending) {
      if (performance.now() - failedAt < retryMs) return Promise.reject(idpUnavailable(lastError));
      pending = discover().then(
        (config) => {
          found = config;
          pending = undefined;
          return config;
        },
        (err: unknown) => {
          failedAt = performance.now();
          lastError = err;
          pending = undefined;
          if (options.faults?.report('idp', err) !== true)
            logger.warn(
              { err: { name: (err as Error).name, message: (err as Error).message }, issuer: settings.issuer },
              'identity provider discovery failed',
            );
          throw idpUnavailable(err);
        },
      );
    }
    return pending;
  }

  // Started now so the first login does not wait for it; a failure here only means later retries.
  configuration().catch(() => undefined);

  return {
    settings,
    configuration,
    ready: () => configuration().then(() => undefined),
    fetch: idpFetch,
    close: () => agent.close(),
  };
}

/**
 * Transport faults and IdP 5xx answers are outages; anything else is the IdP's verdict. By name, not
 * instanceof, for the built-ins: fetch's TypeError may come from another realm (a VM context in tests).
 */
export function isIdpOutage(err: unknown): boolean {
  if (err instanceof AppError) return err.code === 'idp_unavailable';
  if (err instanceof client.ResponseBodyError) return err.status >= 500;
  if (err instanceof client.ClientError) return err.code === 'OAUTH_TIMEOUT' || isTransport(err.cause);
  return isTransport(err);
}

const TRANSPORT = new Set(['TypeError', 'TimeoutError', 'AbortError']);
const isTransport = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && TRANSPORT.has(String((err as { name?: unknown }).name));
