/** Options of the TigerGraph simulator. Everything is optional; defaults act like a fresh TigerGraph. */
export interface SimulatorOptions {
  /** TigerGraph version to mimic, e.g. "3.4.0", "3.9.3", "4.1.0". Default "3.9.3". */
  version?: string;
  host?: string; // default 127.0.0.1
  restppPort?: number; // 0 = ephemeral (default)
  gsqlPort?: number; // 0 = ephemeral (default)
  /** RESTPP.Factory.EnableAuth. Default true. */
  authEnabled?: boolean;
  /**
   * HTTP status of REST-10016/REST-10019 answers (missing, invalid, expired or out-of-scope tokens) on
   * data endpoints. Default 401 (see docs/client-library.md for why).
   */
  authFailureStatus?: 401 | 403;
  /**
   * External JWT verification on RESTPP (3.10+), the equivalents of `Security.JWT.HMAC.Secret`,
   * `Security.JWT.RSA.PublicKey`, `Security.JWT.Issuer` and `Security.JWT.Audience`. Off when absent.
   */
  jwt?: SimulatorJwtOptions;
  /** Users besides tigergraph/tigergraph (superuser). */
  users?: Array<{ name: string; password: string; graphs?: string[]; superuser?: boolean }>;
  /** Extra graphs besides `social` (empty). */
  graphs?: string[];
  /** Secrets that exist at start. */
  secrets?: Array<{ user?: string; graph?: string; alias: string; value: string }>;
  /** Fixed added latency on every answer, ms. */
  latencyMs?: number;
  /**
   * Key for the simulator's own /__sim/ control surface (secrets, tokens, faults, counts), sent as the
   * `X-Sim-Key` header; `@/path/file` reads it from a file. Without one the surface answers only while the
   * simulator listens on a loopback address: on any other address (0.0.0.0 in a container) it is off.
   */
  adminKey?: string;
  /** Clock in epoch ms (tests may pass a controllable one). */
  now?: () => number;
  /** Quiet by default; pass a function to see one line per request. */
  log?: (line: string) => void;
  /**
   * On 3.6+ leave `expiration` out of POST token answers, so a client's "token alone" path (expiry =
   * now + requested lifetime) can be exercised. Ignored before 3.6. Default false.
   */
  omitTokenExpiration?: boolean;
}

export interface SimulatorJwtOptions {
  /** HS256/384/512 shared secret (its UTF-8 bytes), or `@/path/to/file`. */
  hmacSecret?: string;
  /** RS256/384/512 key: PEM, a JWK, or a JWKS document `{"keys":[…]}` (as an OIDC provider serves it), or `@/path/to/file`. */
  rsaPublicKey?: string;
  /** When set, `iss` must equal it. */
  issuer?: string;
  /** When set, `aud` (string or array) must contain it; case-sensitive. */
  audience?: string;
}

export interface SimulatorFaults {
  /** Fraction 0..1 of /requesttoken (and /gsql/v1/tokens) calls that fail. */
  tokenFailureRate?: number;
  /** Every token call answers with this HTTP status + error body until cleared. */
  tokenForcedStatus?: number;
  /** Extra latency for token calls only, ms. */
  tokenLatencyMs?: number;
  /** Extra latency for everything, ms (overrides latencyMs while set). */
  latencyMs?: number;
  /** Every data call (anything but /requesttoken) answers with this HTTP status + error body until cleared. */
  dataForcedStatus?: number;
  /**
   * Data calls (anything but /requesttoken) wait, recorded but unanswered, until faults without it are set: a
   * test's way to have requests in flight on cue. One whose client leaves meanwhile is marked `closedEarly`.
   */
  holdData?: boolean;
}

/** A recorded request as the simulator saw it. Bounded ring (last 2000). */
export interface SeenRequest {
  port: 'restpp' | 'gsql';
  method: string;
  /** Path without the /restpp prefix and without the query string. */
  path: string;
  query: string;
  headers: Record<string, string | string[] | undefined>;
  /** Outcome of token checks on data endpoints: 'ok' | 'missing' | 'invalid' | 'expired' | undefined. */
  auth?: 'ok' | 'missing' | 'invalid' | 'expired';
  status: number;
  at: number;
  /** First 4 KiB of the request body as UTF-8, when there was a body. */
  bodyText?: string;
  /** The client closed the connection before the answer was sent (seen while `holdData` held it). */
  closedEarly?: boolean;
}

export interface SimulatorHandle {
  readonly version: string;
  /** Who may use /__sim/: `open` (loopback, no key), `key` (X-Sim-Key), `off` (beyond loopback, no key). */
  readonly adminSurface: 'open' | 'key' | 'off';
  readonly restppPort: number;
  readonly gsqlPort: number;
  /** Data server base URL: http://host:restppPort (3.x) or http://host:gsqlPort/restpp (4.1+). */
  readonly restppUrl: string;
  /** Admin server base URL: http://host:gsqlPort. */
  readonly gsqlUrl: string;
  /** Calls per "METHOD /path" (path without /restpp prefix, ids kept), e.g. counts['POST /requesttoken']. */
  counts(): Record<string, number>;
  resetCounts(): void;
  /** Requests seen, oldest first. */
  seen(): SeenRequest[];
  setFaults(faults: SimulatorFaults): void;
  /** Makes a token invalid at once (as if dropped server-side; an external JWT goes on the block list). */
  revokeToken(token: string): void;
  /**
   * Creates a secret directly (no HTTP), for tests: returns its alias and full value. Of `user` (default the
   * superuser); `value` picks it (tests of secrets that share a masked form).
   */
  createSecret(opts?: { user?: string; graph?: string; alias?: string; value?: string }): {
    alias: string;
    value: string;
  };
  /** Live tokens with their expiry (epoch seconds), for assertions. */
  tokens(): Array<{ token: string; expiresAt: number; secretAlias: string }>;
  close(): Promise<void>;
}
