import type { KeyIssue } from './fields.js';
import { bytesOf, charsOf, weakness } from './key-strength.js';
import type { EncryptionKey } from '../crypto/crypto.js';
import { capabilitiesOf } from '@tigergraph-bff/client';

/** The parsed env values rules look at (a subset of the schema's output). */
export interface RuleValues {
  NODE_ENV: string;
  PORT: number;
  METRICS_PORT: number | null;
  TG_RESTPP_URL: string | undefined;
  TG_GSQL_URL: string | undefined;
  TG_VERSION: string;
  TG_TOKEN_LIFETIME: number | undefined;
  TOKEN_REFRESH_BEFORE: number;
  REDIS_URL: unknown;
  REDIS_SENTINELS: unknown;
  REDIS_CLUSTER_NODES: unknown;
  SESSION_SECRET: unknown;
  SESSION_ENCRYPTION_KEYS: unknown;
  SESSION_IDLE_TIMEOUT: number;
  SESSION_ABSOLUTE_TIMEOUT: number;
  COOKIE_SECURE: boolean;
  COOKIE_NAME: string | undefined;
  PASSWORD_LOGIN: boolean;
  ADMIN_ROUTES: boolean;
  HEADERS_TIMEOUT_MS: number;
  REQUEST_TIMEOUT_MS: number;
  OIDC_ISSUER: string | undefined;
  OIDC_CLIENT_ID: string | undefined;
  OIDC_CLIENT_SECRET: string | undefined;
  OIDC_REDIRECT_URI: string | undefined;
  OIDC_SCOPES: string;
  OIDC_AUDIENCE: string | undefined;
  OIDC_CREDENTIAL_MAP: unknown;
  MCP_RESOURCE: string | undefined;
  QUERY_THREAD_LIMIT_MAX: number | undefined;
  QUERY_THREAD_LIMIT_DEFAULT: number | undefined;
  QUERY_MEMORY_LIMIT_MAX_MB: number | undefined;
  QUERY_MEMORY_LIMIT_DEFAULT_MB: number | undefined;
  TRUST_PROXY: unknown;
  APP_DIR: string | undefined;
  DEMO_CONSOLE: boolean | undefined;
  DETACHED_QUERIES: boolean;
  RELAY_FORWARD_HEADERS: readonly string[];
}

/** A check across keys; it runs only when every key it reads parsed, so it never sees a bad value. */
export interface Rule {
  keys: readonly (keyof RuleValues)[];
  check(v: RuleValues): KeyIssue[];
}

function inProduction(keys: (keyof RuleValues)[], check: Rule['check']): Rule {
  return { keys: ['NODE_ENV', ...keys], check: (v) => (v.NODE_ENV === 'production' ? check(v) : []) };
}

const when = (cond: boolean, key: string, message: string): KeyIssue[] => (cond ? [{ key, message }] : []);

/** A sizing header's default needs its cap, and is at most it (a default over the cap would be cut anyway). */
function sizingDefault(
  maxKey: 'QUERY_THREAD_LIMIT_MAX' | 'QUERY_MEMORY_LIMIT_MAX_MB',
  defaultKey: 'QUERY_THREAD_LIMIT_DEFAULT' | 'QUERY_MEMORY_LIMIT_DEFAULT_MB',
): Rule {
  return {
    keys: [maxKey, defaultKey],
    check: (v) => {
      const max = v[maxKey];
      const fallback = v[defaultKey];
      if (fallback === undefined) return [];
      if (max === undefined) return when(true, defaultKey, `needs ${maxKey}: without a cap the header is not sent`);
      return when(fallback > max, defaultKey, `must be at most ${maxKey} (${max})`);
    },
  };
}

export const RULES: readonly Rule[] = [
  sizingDefault('QUERY_THREAD_LIMIT_MAX', 'QUERY_THREAD_LIMIT_DEFAULT'),
  sizingDefault('QUERY_MEMORY_LIMIT_MAX_MB', 'QUERY_MEMORY_LIMIT_DEFAULT_MB'),
  {
    // With detached queries owned, the relay sends GSQL-ASYNC itself, only for the starts it records.
    keys: ['DETACHED_QUERIES', 'RELAY_FORWARD_HEADERS'],
    check: (v) =>
      when(
        v.DETACHED_QUERIES && v.RELAY_FORWARD_HEADERS.includes('gsql-async'),
        'RELAY_FORWARD_HEADERS',
        'must not name gsql-async with DETACHED_QUERIES on: the relay sends it for the starts it records',
      ),
  },
  {
    // Both would answer `/`: the app's index.html and the console's.
    keys: ['APP_DIR', 'DEMO_CONSOLE'],
    check: (v) =>
      when(
        v.APP_DIR !== undefined && v.DEMO_CONSOLE === true,
        'DEMO_CONSOLE',
        'cannot be on with APP_DIR: both are served at /',
      ),
  },
  {
    keys: ['PORT', 'METRICS_PORT'],
    check: (v) =>
      when(
        v.METRICS_PORT !== null && v.METRICS_PORT !== 0 && v.METRICS_PORT === v.PORT,
        'METRICS_PORT',
        'must differ from PORT (metrics have their own listener)',
      ),
  },
  {
    // Node refuses to start a server whose header timeout is longer than its whole-request timeout.
    keys: ['HEADERS_TIMEOUT_MS', 'REQUEST_TIMEOUT_MS'],
    check: (v) =>
      when(v.HEADERS_TIMEOUT_MS > v.REQUEST_TIMEOUT_MS, 'HEADERS_TIMEOUT_MS', 'must be at most REQUEST_TIMEOUT_MS'),
  },
  {
    // Only against an explicit lifetime: with the derived one the refresh margin is capped (config.ts).
    keys: ['TOKEN_REFRESH_BEFORE', 'TG_TOKEN_LIFETIME'],
    check: (v) =>
      when(
        v.TG_TOKEN_LIFETIME !== undefined && v.TOKEN_REFRESH_BEFORE >= v.TG_TOKEN_LIFETIME,
        'TOKEN_REFRESH_BEFORE',
        'must be less than TG_TOKEN_LIFETIME',
      ),
  },
  {
    // Refused rather than capped: an operator who asked for more should learn it has no effect.
    keys: ['TG_TOKEN_LIFETIME', 'SESSION_ABSOLUTE_TIMEOUT'],
    check: (v) =>
      when(
        v.TG_TOKEN_LIFETIME !== undefined && v.TG_TOKEN_LIFETIME > v.SESSION_ABSOLUTE_TIMEOUT,
        'TG_TOKEN_LIFETIME',
        'must be at most SESSION_ABSOLUTE_TIMEOUT (a token must not outlive its session); leave it unset to use that',
      ),
  },
  {
    keys: ['SESSION_ABSOLUTE_TIMEOUT', 'SESSION_IDLE_TIMEOUT'],
    check: (v) =>
      when(
        v.SESSION_ABSOLUTE_TIMEOUT < v.SESSION_IDLE_TIMEOUT,
        'SESSION_ABSOLUTE_TIMEOUT',
        'must be at least SESSION_IDLE_TIMEOUT',
      ),
  },
  {
    // 4.1+ issues tokens from the GSQL server, so the data server URL alone is not enough.
    keys: ['TG_VERSION', 'TG_RESTPP_URL', 'TG_GSQL_URL'],
    check: (v) =>
      when(
        capabilitiesOf(v.TG_VERSION).tokenEndpoint === 'gsql' &&
          v.TG_RESTPP_URL !== undefined &&
          v.TG_GSQL_URL === undefined,
        'TG_GSQL_URL',
        'is required with TG_RESTPP_URL when TG_VERSION is 4.1 or later',
      ),
  },
  {
    keys: ['PASSWORD_LOGIN', 'ADMIN_ROUTES', 'TG_RESTPP_URL', 'TG_GSQL_URL'],
    check: (v) =>
      when(
        (v.PASSWORD_LOGIN || v.ADMIN_ROUTES) && v.TG_RESTPP_URL !== undefined && v.TG_GSQL_URL === undefined,
        'TG_GSQL_URL',
        'is required when PASSWORD_LOGIN or ADMIN_ROUTES is enabled (they talk to the admin server)',
      ),
  },
  {
    keys: ['COOKIE_NAME', 'COOKIE_SECURE'],
    check: (v) =>
      when(
        !v.COOKIE_SECURE && /^__(Host|Secure)-/.test(v.COOKIE_NAME ?? ''),
        'COOKIE_NAME',
        'the __Host- and __Secure- prefixes require COOKIE_SECURE=true',
      ),
  },
  inProduction(['TG_RESTPP_URL'], (v) =>
    when(
      v.TG_RESTPP_URL === undefined,
      'TG_RESTPP_URL',
      'is required in production (the simulator is for development only)',
    ),
  ),
  inProduction(['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'], (v) =>
    when(
      v.REDIS_URL === undefined && v.REDIS_SENTINELS === undefined && v.REDIS_CLUSTER_NODES === undefined,
      'REDIS_URL',
      'a Redis mode (REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES) is required in production',
    ),
  ),
  inProduction(['SESSION_SECRET'], (v) => {
    if (v.SESSION_SECRET === undefined) return [{ key: 'SESSION_SECRET', message: 'is required in production' }];
    return (v.SESSION_SECRET as readonly string[]).flatMap((secret, i) => {
      const weak = weakness(charsOf(secret));
      return when(
        weak !== undefined,
        'SESSION_SECRET',
        `secret ${i + 1} is too weak for production: ${weak}; make one with: openssl rand -base64 48`,
      );
    });
  }),
  inProduction(['SESSION_ENCRYPTION_KEYS'], (v) => {
    if (v.SESSION_ENCRYPTION_KEYS === undefined)
      return [{ key: 'SESSION_ENCRYPTION_KEYS', message: 'is required in production' }];
    return (v.SESSION_ENCRYPTION_KEYS as readonly EncryptionKey[]).flatMap(({ id, key }) => {
      const weak = weakness(bytesOf(key));
      return when(
        weak !== undefined,
        'SESSION_ENCRYPTION_KEYS',
        `key "${id}" is too weak for production: ${weak?.replace('character', 'byte')}; make one with: openssl rand -base64 32`,
      );
    });
  }),
  inProduction(['TRUST_PROXY'], (v) =>
    when(
      v.TRUST_PROXY === true,
      'TRUST_PROXY',
      'must not be true in production: it trusts every hop, so any client sets its own address (and login budget) with X-Forwarded-For; name your proxies instead, by address or subnet (e.g. TRUST_PROXY=10.0.0.0/8) or by count (e.g. TRUST_PROXY=1)',
    ),
  ),
  inProduction(['COOKIE_SECURE'], (v) => when(!v.COOKIE_SECURE, 'COOKIE_SECURE', 'must not be false in production')),
  {
    // Single sign-on is on with an issuer; then the client registration must be complete.
    keys: ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_REDIRECT_URI'],
    check: (v) =>
      v.OIDC_ISSUER === undefined
        ? []
        : (['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_REDIRECT_URI'] as const).flatMap((key) =>
            when(v[key] === undefined, key, 'is required when OIDC_ISSUER is set'),
          ),
  },
  {
    // Relaying the IdP's JWT: without an audience TigerGraph cannot tell an access token for it from any other
    // JWT of the IdP (an ID token, a token for another API), and a 3.10+ server without Security.JWT.Audience
    // accepts them all. With a credential map the IdP's access token never leaves the service: none is needed.
    keys: ['OIDC_ISSUER', 'OIDC_AUDIENCE', 'OIDC_CREDENTIAL_MAP'],
    check: (v) =>
      when(
        v.OIDC_ISSUER !== undefined && v.OIDC_AUDIENCE === undefined && v.OIDC_CREDENTIAL_MAP === undefined,
        'OIDC_AUDIENCE',
        "is required when OIDC_ISSUER is set without OIDC_CREDENTIAL_MAP: the resource TigerGraph's Security.JWT.Audience names (set both, the same)",
      ),
  },
  {
    // An ID token's aud is the client id: with that as the audience, TigerGraph would take ID tokens as bearers.
    keys: ['OIDC_ISSUER', 'OIDC_AUDIENCE', 'OIDC_CLIENT_ID'],
    check: (v) =>
      when(
        v.OIDC_ISSUER !== undefined && v.OIDC_AUDIENCE !== undefined && v.OIDC_AUDIENCE === v.OIDC_CLIENT_ID,
        'OIDC_AUDIENCE',
        'must differ from OIDC_CLIENT_ID: ID tokens carry the client id as aud, so TigerGraph would accept them as bearers',
      ),
  },
  {
    keys: ['OIDC_ISSUER', 'OIDC_SCOPES'],
    check: (v) =>
      when(
        v.OIDC_ISSUER !== undefined && !v.OIDC_SCOPES.split(' ').includes('openid'),
        'OIDC_SCOPES',
        'must include openid',
      ),
  },
  {
    // The MCP endpoint takes the IdP's access tokens for its own resource: it needs the IdP, and a resource of
    // its own (a token for TigerGraph's audience, or an ID token, must never open it).
    keys: ['MCP_RESOURCE', 'OIDC_ISSUER', 'OIDC_AUDIENCE', 'OIDC_CLIENT_ID'],
    check: (v) =>
      v.MCP_RESOURCE === undefined
        ? []
        : [
            ...when(
              v.OIDC_ISSUER === undefined,
              'MCP_RESOURCE',
              'needs single sign-on: set OIDC_ISSUER (and the other OIDC_*)',
            ),
            ...when(
              v.MCP_RESOURCE === v.OIDC_AUDIENCE || v.MCP_RESOURCE === v.OIDC_CLIENT_ID,
              'MCP_RESOURCE',
              'must differ from OIDC_AUDIENCE and OIDC_CLIENT_ID: a token for TigerGraph, or an ID token, must not open the MCP endpoint',
            ),
          ],
  },
  inProduction(['MCP_RESOURCE'], (v) =>
    when(v.MCP_RESOURCE?.startsWith('http:') === true, 'MCP_RESOURCE', 'must be https in production'),
  ),
  inProduction(['OIDC_ISSUER', 'OIDC_REDIRECT_URI'], (v) => [
    ...when(v.OIDC_ISSUER?.startsWith('http:') === true, 'OIDC_ISSUER', 'must be https in production'),
    ...when(v.OIDC_REDIRECT_URI?.startsWith('http:') === true, 'OIDC_REDIRECT_URI', 'must be https in production'),
  ]),
];
