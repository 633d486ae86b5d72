import type { Dispatcher } from 'undici';

/** Wire eras of the token endpoint: ≤3.4 query strings, 3.5–4.0 JSON bodies, 4.1+ GSQL JWT tokens. */
export type WireEra = 'query' | 'json' | 'jwt';

/** A token and when it stops working, in epoch seconds. */
export interface TokenGrant {
  token: string;
  expiresAt: number;
}

/**
 * The precise token API the service uses. Every call either resolves or throws a TigerGraphError.
 * `lifetime` is in seconds; omitted means the server default (2,592,000 s on 3.x).
 */
export interface TokenApi {
  readonly era: WireEra;
  /**
   * With `graph` (3.5+), TigerGraph checks the secret against that graph: a graph that does not exist, or
   * that the secret is not for, throws kind 'graph_not_found'. ≤3.4 cannot send a graph with a secret.
   */
  requestToken(secret: string, lifetime?: number, options?: { graph?: string }): Promise<TokenGrant>;
  /**
   * New expiry = now + lifetime. On 4.1+ (no refresh on the wire) this mints a new token, for `graph` when
   * given (as the first was minted: without it, a 4.1+ secret's token reaches every graph of its user).
   */
  refreshToken(secret: string, token: string, lifetime?: number, options?: { graph?: string }): Promise<TokenGrant>;
  /** Throws TigerGraphError with kind 'token_not_found' when the token does not exist. */
  deleteToken(secret: string, token: string): Promise<void>;
}

/** Admin-server credentials: a user and password, sent as HTTP basic auth, never stored. */
export interface AdminCredentials {
  username: string;
  password: string;
}

export interface SecretRecord {
  alias: string;
  /** Masked as the server shows it (first 3 + **** + last 3) unless just created. */
  secret: string;
  graph?: string;
}

/** The admin-server secret API the service and the CLI use. */
export interface SecretApi {
  createSecret(creds: AdminCredentials, graph: string, alias?: string): Promise<{ alias: string; secret: string }>;
  listSecrets(creds: AdminCredentials, graph: string): Promise<SecretRecord[]>;
  /** Throws TigerGraphError kind 'secret_not_found' for an unknown alias. */
  dropSecret(creds: AdminCredentials, graph: string, alias: string): Promise<void>;
}

export interface ClientOptions {
  /** Data server base, e.g. http://host:9000 (3.x) or https://host:14240/restpp (4.1+). */
  restppUrl: string;
  /** Admin server base, e.g. http://host:14240. Needed for 4.1+ tokens and for secrets. */
  gsqlUrl?: string;
  /** TigerGraph version, e.g. "3.9.3"; decides the wire era. */
  version: string;
  /** One Pool/Agent per upstream, passed in; the client creates one Agent if absent. */
  dispatcher?: Dispatcher;
  /** Per-call deadline in milliseconds (default 10000). */
  timeoutMs?: number;
  /** Clock in epoch milliseconds, for now + lifetime. */
  now?: () => number;
}
