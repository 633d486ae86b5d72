import type { RedisConfig } from '../config/redis-mode.js';
import { addressOf, type Dependency, type DependencyTarget } from './dependency-faults.js';

const hostPorts = (list: readonly { host: string; port: number }[]): string =>
  list.map(({ host, port }) => `${host}:${port}`).join(',');

/**
 * Where each dependency is, as fault lines and /readyz name it: the address (never a credential: a
 * redis:// URL's user and password are left out) and the setting that names it. The simulator in process
 * is TigerGraph too, at its own address (TG_RESTPP_URL unset).
 */
export function dependencyTargets(settings: {
  redis: Readonly<RedisConfig>;
  restppUrl: string;
  gsqlUrl?: string | undefined;
  oidcIssuer?: string | undefined;
}): Partial<Record<Dependency, DependencyTarget>> {
  const tigergraph = (name: string, url: string, setting: string): DependencyTarget => ({
    name: `TigerGraph's ${name}`,
    address: new URL(url).origin,
    setting,
    caSetting: 'TG_CA_FILE',
    versionSetting: 'TG_VERSION',
  });
  const targets: Partial<Record<Dependency, DependencyTarget>> = {
    tigergraph: tigergraph('data server (RESTPP)', settings.restppUrl, 'TG_RESTPP_URL'),
    // Without TG_GSQL_URL the admin server is TG_RESTPP_URL's origin (4.1+: RESTPP under /restpp there), where
    // 4.1+ tokens and password logins go: either setting fixes its address.
    tigergraph_admin:
      settings.gsqlUrl !== undefined
        ? tigergraph('admin server (GSQL)', settings.gsqlUrl, 'TG_GSQL_URL')
        : tigergraph('admin server (GSQL)', settings.restppUrl, 'TG_GSQL_URL, TG_RESTPP_URL'),
  };
  if (settings.oidcIssuer !== undefined)
    targets.idp = {
      name: 'the identity provider',
      address: addressOf(settings.oidcIssuer),
      setting: 'OIDC_ISSUER',
      // The IdP is called with Node's fetch: a private CA is trusted through Node's own variable, read at start.
      caSetting: 'NODE_EXTRA_CA_CERTS',
    };
  const redis = settings.redis;
  if (redis.mode !== 'memory') {
    const [address, setting] =
      redis.mode === 'standalone'
        ? [addressOf(redis.url), 'REDIS_URL']
        : redis.mode === 'sentinel'
          ? [hostPorts(redis.sentinels), 'REDIS_SENTINELS']
          : [hostPorts(redis.nodes), 'REDIS_CLUSTER_NODES'];
    targets.redis = {
      name: 'Redis',
      address,
      setting,
      caSetting: 'REDIS_CA_FILE',
      authSettings:
        redis.mode === 'sentinel'
          ? 'REDIS_USERNAME, REDIS_PASSWORD, REDIS_SENTINEL_PASSWORD'
          : redis.mode === 'standalone'
            ? "REDIS_USERNAME, REDIS_PASSWORD (or the URL's user:password)"
            : 'REDIS_USERNAME, REDIS_PASSWORD',
    };
  }
  return targets;
}
