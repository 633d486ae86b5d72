import type { ConfigKey } from '../config.js';

export interface SettingSection {
  title: string;
  /** Said once under the title. */
  intro?: string;
}

export interface SettingDoc {
  section: SectionId;
  /** What the key does, one or two sentences; the default is added from the parser. */
  doc: string;
  /** Said instead of the parsed default when that is computed at start-up or is not a plain value. */
  defaultText?: string;
  /** Said after the parsed default, e.g. what a number of seconds amounts to. */
  defaultNote?: string;
}

export type SectionId =
  | 'service'
  | 'tigergraph'
  | 'quotas'
  | 'redis'
  | 'sessions-and-cookie'
  | 'browser-security'
  | 'features'
  | 'single-sign-on'
  | 'ai-agents'
  | 'tracing';

/** The sections of .env.example and docs/configuration.md, in order. */
export const SETTING_SECTIONS: Readonly<Record<SectionId, SettingSection>> = {
  service: { title: 'Service' },
  tigergraph: { title: 'TigerGraph' },
  quotas: {
    title: 'Quotas and query guardrails',
    intro:
      'per principal (secret, TigerGraph user or IdP subject) across every instance; quotas are off by default, see docs/quotas.md',
  },
  redis: {
    title: 'Redis',
    intro:
      'set at most one of REDIS_URL, REDIS_SENTINELS, REDIS_CLUSTER_NODES; none = in-memory store, not in production',
  },
  'sessions-and-cookie': { title: 'Sessions and cookie' },
  'browser-security': { title: 'Browser security' },
  features: {
    title: 'Features',
    intro:
      "logins, the admin routes and their limits. A secret shared by several people is one credential to every per-credential limit, which cannot tell its holders apart: any one of them can spend the others' LOGIN_CREDENTIAL_BUDGET, end their sessions by logging in past SESSIONS_PER_CREDENTIAL, and use up their RELAY_CREDENTIAL_CONCURRENCY and quotas, so give each person or app a secret of its own (or single sign-on, where each person is their own principal)",
  },
  'single-sign-on': {
    title: 'Single sign-on (OIDC)',
    intro: 'on when OIDC_ISSUER is set; see README "Single sign-on"',
  },
  'ai-agents': {
    title: 'AI agents (MCP)',
    intro: 'on when MCP_RESOURCE is set (needs single sign-on); see docs/mcp.md',
  },
  tracing: {
    title: 'Tracing (OpenTelemetry)',
    intro:
      'off unless an OTLP endpoint is set; the standard OTEL_* variables, see docs/tracing.md. OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT and _COMPRESSION are read by the exporter itself',
  },
};

/**
 * What every key means, beside its parser and default in config.ts: .env.example and docs/configuration.md
 * are generated from these two (`npm run docs:config`), and a test fails when either file differs.
 * A Record over ConfigKey, so a new key does not compile until it is documented here.
 */
export const SETTING_DOCS: Readonly<Record<ConfigKey, SettingDoc>> = {
  NODE_ENV: {
    section: 'service',
    doc: 'development, production or test, exactly (anything else stops the start). "production" makes TG_RESTPP_URL, a Redis mode and the session secrets mandatory, refuses weak secrets and keys and TRUST_PROXY=true.',
  },
  PORT: { section: 'service', doc: 'Port to listen on.' },
  HOST: { section: 'service', doc: 'Address to bind.' },
  METRICS_PORT: {
    section: 'service',
    doc: 'Port of the Prometheus listener, which serves GET /metrics and nothing else; never publish it. 0 picks a free port, off disables it.',
  },
  METRICS_HOST: {
    section: 'service',
    doc: 'Address the metrics listener binds; the image sets 0.0.0.0 so a scraper on the container network reaches it.',
  },
  LOG_LEVEL: { section: 'service', doc: 'Log level: fatal, error, warn, info, debug, trace or silent.' },
  LOG_FLUSH_MS: {
    section: 'service',
    doc: 'Log lines are written in batches of about 4 KiB, at the latest this often, in ms; 0 writes each line at once.',
  },
  FAULT_LOG_INTERVAL_MS: {
    section: 'service',
    doc: 'A fault that repeats (Redis or TigerGraph unreachable, a refused origin) is logged once, then at most once per this many ms with a count of its repeats (docs/troubleshooting.md).',
  },
  LOG_USER_NAMES: {
    section: 'service',
    doc: 'How access lines name the user of a logged-in request (TigerGraph user or IdP subject): plain, or hashed (a keyed hash, for deployments that must not log names).',
  },
  AUDIT_LOG_FILE: {
    section: 'service',
    doc: 'File the audit trail (logins, logouts, session ends, token calls, secrets, limits; docs/audit.md) is appended to; unset writes it to stdout beside the request log, each line marked "stream":"audit".',
  },
  SHUTDOWN_TIMEOUT_MS: {
    section: 'service',
    doc: 'Time to finish in-flight requests on SIGTERM before exiting, in ms.',
  },
  TG_RESTPP_URL: {
    section: 'tigergraph',
    doc: 'Data server (RESTPP) URL, e.g. http://tg:9000 or https://host/restpp (Cloud, 4.x); unset outside production runs the simulator.',
  },
  TG_GSQL_URL: {
    section: 'tigergraph',
    doc: 'Admin (GSQL) server URL, e.g. http://tg:14240 or https://host (Cloud); needed for 4.1+, PASSWORD_LOGIN, ADMIN_ROUTES.',
  },
  TG_VERSION: { section: 'tigergraph', doc: 'TigerGraph version as x.y[.z]; decides the token wire format.' },
  TG_TOKEN_LIFETIME: {
    section: 'tigergraph',
    doc: 'Lifetime requested for each token, in seconds. A larger value than SESSION_ABSOLUTE_TIMEOUT is refused at start-up: no token may outlive the longest session it can serve.',
    defaultText: 'SESSION_ABSOLUTE_TIMEOUT',
  },
  TOKEN_REFRESH_BEFORE: {
    section: 'tigergraph',
    doc: 'Refresh a token this many seconds before it expires; must be below an explicit TG_TOKEN_LIFETIME (with the derived lifetime it is capped at half of it).',
  },
  TG_CA_FILE: {
    section: 'tigergraph',
    doc: "PEM file with the CA that signed TigerGraph's TLS certificate, read once at start-up.",
    defaultText: 'system CAs',
  },
  UPSTREAM_TIMEOUT_MS: {
    section: 'tigergraph',
    doc: "Per-request upstream deadline in ms, counted from the request's arrival (session, token, body and pool queue included) to the answer's headers; also the longest pause between chunks of the answer.",
  },
  UPSTREAM_CONNECTIONS: {
    section: 'tigergraph',
    doc: 'Keep-alive connections to the data server for relayed requests, shared by all sessions of one instance; token and admin calls have a cap of the same size of their own (per server), and readiness one connection.',
  },
  RELAY_SESSION_CONCURRENCY: {
    section: 'tigergraph',
    doc: 'Relayed requests one session may have in flight on one instance; more get 429 too_many_requests.',
  },
  RELAY_CREDENTIAL_CONCURRENCY: {
    section: 'tigergraph',
    doc: 'Relayed requests all sessions of one credential (secret, TigerGraph user or IdP subject) may have in flight together on one instance; more get 429 too_many_requests. Keep it below UPSTREAM_CONNECTIONS so one credential cannot hold the whole pool.',
  },
  OVERLOAD_MAX_IN_FLIGHT: {
    section: 'service',
    doc: 'Overload protection: requests in flight on one instance (all routes, from their headers to the end of the answer) beyond which a new one is refused at once with 503 overloaded and Retry-After: 1, before any session read or upstream call; /healthz still answers and /readyz answers 503 overloaded. 0 (the default) = no limit: anyone who can open that many requests and hold them (slow bodies, slow queries; each lasts up to REQUEST_TIMEOUT_MS or UPSTREAM_TIMEOUT_MS) would make the instance refuse everybody, so set it only behind a balancer that caps connections per client address, well above the concurrency a busy instance holds (about 50 at its maximum rate in the benchmark). See docs/deploying.md, "Overload".',
  },
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: {
    section: 'service',
    doc: "Overload protection: the mean event-loop delay over a 500 ms window (how long ready work waits for the process; @fastify/under-pressure's signal) beyond which every request but /healthz and /readyz is refused with 503 overloaded and Retry-After: 1 until a window is under it again. A quiet instance stays near 0 even at its maximum rate; CPU starvation or more arrivals than it can serve raise it. Default 200 in production, 0 (not watched) otherwise, where the process often shares its loop with other work; 0 = not watched.",
  },
  QUOTA_RATE: {
    section: 'quotas',
    doc: 'Relayed requests one principal may start per QUOTA_WINDOW seconds, counted in Redis across all instances; more get 429 quota_exceeded with Retry-After. 0 = no rate quota (the default: it costs one Redis call per relayed request; see README).',
  },
  QUOTA_WINDOW: { section: 'quotas', doc: 'Length of the QUOTA_RATE window in seconds (fixed windows).' },
  QUOTA_BURST: {
    section: 'quotas',
    doc: 'Extra requests a principal may start per QUOTA_BURST_WINDOW once its QUOTA_RATE is spent; 0 = no burst.',
  },
  QUOTA_BURST_WINDOW: { section: 'quotas', doc: 'Length of the QUOTA_BURST window in seconds.' },
  QUOTA_CONCURRENCY: {
    section: 'quotas',
    doc: 'Relayed requests one principal may have in flight across all instances (leases in Redis that lapse after QUOTA_LEASE_MS unless renewed); more get 429 too_many_requests. 0 = no cap across instances (RELAY_CREDENTIAL_CONCURRENCY still caps each instance).',
  },
  QUOTA_LEASE_MS: {
    section: 'quotas',
    doc: "How long an in-flight lease lasts unless its instance renews it (every third of it, for requests that last that long); a killed instance's slots come back within this.",
  },
  QUOTA_POLICY_FILE: {
    section: 'quotas',
    doc: 'YAML or JSON file of per-graph and per-query overrides, read once at start-up: {rules: [{name, graph, query?, rate?, window?, burst?, burstWindow?, concurrency?}]}; see docs/quotas.md.',
    defaultText: 'none',
  },
  QUERY_TIMEOUT_MAX_MS: {
    section: 'quotas',
    doc: 'The most GSQL-TIMEOUT (ms) a relayed request carries to TigerGraph; a browser asking for more gets this.',
    defaultText: 'UPSTREAM_TIMEOUT_MS',
  },
  QUERY_TIMEOUT_DEFAULT_MS: {
    section: 'quotas',
    doc: "GSQL-TIMEOUT (ms) sent when the browser sends none, at most QUERY_TIMEOUT_MAX_MS; 16000 is TigerGraph's own default.",
  },
  QUERY_THREAD_LIMIT_MAX: {
    section: 'quotas',
    doc: "The most GSQL-THREAD-LIMIT (threads a query may use) a relayed request carries to TigerGraph; a browser asking for more gets this. Unset: the header is never forwarded and TigerGraph's own configuration applies.",
    defaultText: 'unset',
  },
  QUERY_THREAD_LIMIT_DEFAULT: {
    section: 'quotas',
    doc: 'GSQL-THREAD-LIMIT sent when the browser sends none; needs QUERY_THREAD_LIMIT_MAX, at most it.',
    defaultText: 'QUERY_THREAD_LIMIT_MAX',
  },
  QUERY_MEMORY_LIMIT_MAX_MB: {
    section: 'quotas',
    doc: "The most GSQL-QueryLocalMemLimitMB (a query's memory per machine, MB; TigerGraph 4.x) a relayed request carries; a browser asking for more gets this. Unset: the header is never forwarded and TigerGraph's own configuration applies.",
    defaultText: 'unset',
  },
  QUERY_MEMORY_LIMIT_DEFAULT_MB: {
    section: 'quotas',
    doc: 'GSQL-QueryLocalMemLimitMB sent when the browser sends none; needs QUERY_MEMORY_LIMIT_MAX_MB, at most it.',
    defaultText: 'QUERY_MEMORY_LIMIT_MAX_MB',
  },
  RELAY_MAX_RESPONSE_BYTES: {
    section: 'quotas',
    doc: 'Largest relayed answer in bytes, and the most (and default) RESPONSE-LIMIT sent to TigerGraph. A declared longer answer gets 502 response_too_large; a streamed one is cut (docs/quotas.md).',
    defaultNote: '(64 MiB)',
  },
  DETACHED_QUERIES: {
    section: 'quotas',
    doc: "Detached (GSQL-ASYNC) installed queries, owned: the relay sends GSQL-ASYNC: true for a browser that asks, records the request id TigerGraph answers against the principal, and relays /query_status, /query_result, /abortquery and /showprocesslist only for (or filtered to) the caller's own ids; RELAY_ALLOW must still open those paths. Off: GSQL-ASYNC is not forwarded (unless RELAY_FORWARD_HEADERS names it) and those paths, when allowlisted, are relayed as sent (docs/quotas.md).",
  },
  DETACHED_QUERY_TTL: {
    section: 'quotas',
    doc: "Seconds a detached query id stays its starter's (and readable by them); after it the id answers as unknown.",
    defaultNote: '(1 hour)',
  },
  DETACHED_QUERIES_PER_PRINCIPAL: {
    section: 'quotas',
    doc: 'Live detached query ids one principal may have on record; a start beyond it gets 429 quota_exceeded before it reaches TigerGraph.',
  },
  RELAY_COALESCE: {
    section: 'quotas',
    doc: 'Identical concurrent reads (GETs, and POSTs to installed queries the policy file marks readOnly) of one principal share one TigerGraph call; the answer is read into memory and given to each (docs/quotas.md). Off: every request makes its own call and answers stream through.',
  },
  RELAY_COALESCE_WAITERS: {
    section: 'quotas',
    doc: 'Requests that may share one TigerGraph call (the first included) with RELAY_COALESCE; more make their own.',
  },
  RELAY_COALESCE_MAX_BYTES: {
    section: 'quotas',
    doc: "Answer bytes all shared calls of one instance may hold in memory at once with RELAY_COALESCE; past it a call's answer streams to its first request and the others make their own calls.",
    defaultNote: '(256 MiB)',
  },
  RELAY_FORWARD_HEADERS: {
    section: 'tigergraph',
    doc: 'Browser headers the relay forwards besides its allowlist (Accept, Accept-Language, Content-Type, Content-Encoding, GSQL-TIMEOUT, RESPONSE-LIMIT), comma list; credentials, framing and override headers are refused, and so are GSQL-THREAD-LIMIT and GSQL-QueryLocalMemLimitMB (their QUERY_*_MAX settings forward them capped).',
  },
  RELAY_RESPONSE_HEADERS: {
    section: 'tigergraph',
    doc: "Upstream answer headers the browser gets besides the relay's allowlist (Content-Type, -Length, -Encoding, -Language, -Range, -Disposition, Accept-Ranges, Expires, Last-Modified, ETag, Age, Pragma, Vary, Retry-After), comma list; cookies, credentials, login prompts, Location, Refresh, Clear-Site-Data, Alt-Svc, Link, HSTS, the BFF's own security headers, CORS and hop-by-hop are refused. Relayed answers carry Cache-Control: private, no-store (one user's data: no shared cache may keep it); naming cache-control here passes TigerGraph's own instead.",
  },
  RELAY_ALLOW: {
    section: 'tigergraph',
    doc: 'RESTPP paths the /api relay may forward: comma list of path prefixes, each optionally "METHOD /prefix".',
    defaultText: "the relay's built-in list",
  },
  MAX_BODY_BYTES: {
    section: 'tigergraph',
    doc: 'Largest request body accepted, in bytes, chunked or not; a larger /api body gets 413 and never reaches TigerGraph. A compressed body (RELAY_COMPRESSED_BODIES) counts the bytes it inflates to.',
  },
  RELAY_COMPRESSED_BODIES: {
    section: 'tigergraph',
    doc: 'Accept /api request bodies sent with Content-Encoding gzip, deflate or br: each is inflated once (bounded by MAX_BODY_BYTES) to check what TigerGraph would process, then forwarded as sent. Off: such a body gets 415 unsupported_encoding.',
  },
  HEADERS_TIMEOUT_MS: {
    section: 'tigergraph',
    doc: 'Slow clients: a request whose headers take longer than this (ms) is answered 408 and its connection closed.',
  },
  REQUEST_TIMEOUT_MS: {
    section: 'tigergraph',
    doc: 'Slow clients: a request whose headers and body together take longer than this (ms) gets 408, connection closed.',
  },
  REDIS_URL: { section: 'redis', doc: 'Standalone Redis, redis:// or rediss:// (TLS) URL.' },
  REDIS_SENTINELS: { section: 'redis', doc: 'Sentinels as host:port,host:port; needs REDIS_SENTINEL_NAME.' },
  REDIS_SENTINEL_NAME: { section: 'redis', doc: 'Name of the master the sentinels watch.' },
  REDIS_SENTINEL_PASSWORD: { section: 'redis', doc: 'Password for the sentinels themselves, if they require one.' },
  REDIS_CLUSTER_NODES: { section: 'redis', doc: 'Cluster seed nodes as host:port,host:port.' },
  REDIS_USERNAME: { section: 'redis', doc: 'Redis ACL username.' },
  REDIS_PASSWORD: { section: 'redis', doc: 'Redis password.' },
  REDIS_TLS: { section: 'redis', doc: 'Connect to Redis over TLS.', defaultNote: 'a rediss:// URL turns it on too' },
  REDIS_CA_FILE: {
    section: 'redis',
    doc: "PEM file with the CA that signed Redis's TLS certificate, trusted besides the public roots; needs TLS.",
    defaultText: 'system CAs',
  },
  REDIS_COMMAND_TIMEOUT_MS: {
    section: 'redis',
    doc: 'Redis command timeout in ms, so a stalled Redis answers 503 instead of hanging. A reply that arrived while this process was busy (its event loop held up past the timeout) counts as in time.',
  },
  STORE_FAILOVER_WAIT_MS: {
    section: 'redis',
    doc: 'How long a request waits for a lost Redis connection (refused, reset, a Sentinel or Cluster failover) before 503 store_unavailable; /readyz stays ready meanwhile. The default covers a Sentinel failover at down-after-milliseconds 5000 (election and promotion add 1-3 s). 0 fails at once. A command that may have run (a write already sent when the connection went) is never sent again; one that provably did not run, or a read, is issued again within the bound. A frozen Redis still fails at REDIS_COMMAND_TIMEOUT_MS.',
  },
  REDIS_LOGOUT_REPLICA_WAIT_MS: {
    section: 'redis',
    doc: 'Sentinel and Cluster: how long a logout waits for a replica to acknowledge its tombstone (Redis WAIT) before answering 503 store_unavailable (the cookie is cleared all the same); replication is asynchronous, so a tombstone only the old master held is lost in a failover. Must be below REDIS_COMMAND_TIMEOUT_MS. A master with no replica attached is not waited on. The WAITs go on a Redis connection of their own (one more per instance), so they hold no other store command. 0 turns it off (and that connection).',
    defaultText: 'half of REDIS_COMMAND_TIMEOUT_MS (400)',
  },
  STORE_FAILOVER_WAITERS: {
    section: 'redis',
    doc: 'How many store commands may wait for a lost Redis connection at once, per instance; beyond it they answer 503 at once.',
  },
  SESSION_CACHE: {
    section: 'redis',
    doc: "Serve the sessions of relayed (/api) requests from process memory when warm, kept true by Redis's CLIENT TRACKING invalidations (standalone and Sentinel; Cluster keeps one MGET per request); every other route reads the session from Redis (one MGET), so a session ended on another instance is never reported live there, however late its invalidation arrives. A write on any instance reaches the others within a few ms on loopback; a lost invalidation connection flushes the cache and bypasses it until tracking is set up again. false: one MGET per request as before.",
  },
  SESSION_CACHE_MAX: {
    section: 'redis',
    doc: 'Most sessions the session cache holds per instance (least recently used go first); 0 turns the cache off.',
  },
  SESSION_CACHE_TTL_MS: {
    section: 'redis',
    doc: "Longest a session stays cached in ms, whatever else happens; the session key's own TTL caps it too.",
  },
  REDIS_PREFIX: { section: 'redis', doc: 'Prefix of every Redis key this service writes.' },
  SESSION_SECRET: {
    section: 'sessions-and-cookie',
    doc: 'Cookie signing secrets, comma list, each >= 32 chars, first signs; required in production, else generated per start. Production refuses a weak one: a short run repeated, fewer than 10 different characters, or under 96 bits estimated (length x entropy of its character frequencies); openssl rand -base64 48 makes a good one.',
    defaultText: 'generated per start (outside production)',
  },
  SESSION_ENCRYPTION_KEYS: {
    section: 'sessions-and-cookie',
    doc: 'At-rest encryption keys as id:base64key,... (32 bytes: openssl rand -base64 32), first encrypts; required in production, else generated. Production refuses a weak key by the SESSION_SECRET rule over its bytes (all-zero, one byte repeated, a short pattern).',
    defaultText: 'generated per start (outside production)',
  },
  SESSION_IDLE_TIMEOUT: { section: 'sessions-and-cookie', doc: 'Seconds of inactivity after which a session ends.' },
  SESSION_ABSOLUTE_TIMEOUT: {
    section: 'sessions-and-cookie',
    doc: 'Seconds after login at which a session ends regardless of activity; at least the idle timeout.',
  },
  COOKIE_SECURE: {
    section: 'sessions-and-cookie',
    doc: 'Mark the cookie Secure; set false only for local plain-http use, never in production.',
  },
  COOKIE_NAME: {
    section: 'sessions-and-cookie',
    doc: 'Cookie name.',
    defaultText: '__Host-tgbff, or tgbff when COOKIE_SECURE=false (__Host- requires Secure)',
  },
  ALLOWED_ORIGINS: {
    section: 'browser-security',
    doc: 'Other origins (scheme://host[:port], comma list) allowed CORS with credentials and state changes; own origin always allowed. Stored and compared in serialized form (lower case, no default port); anything with a path, query or credentials stops the start.',
  },
  CSRF_HEADER: {
    section: 'browser-security',
    doc: 'Header every /api request and every state-changing request must carry, any value.',
  },
  TRUST_PROXY: {
    section: 'browser-security',
    doc: 'Proxies to believe for X-Forwarded-* and X-Request-Id: false, true, a hop count, or addresses/subnets/loopback/linklocal/uniquelocal. true (every hop) is refused in production: any client could then choose its own address. A safe X-Request-Id from a trusted proxy is the request id; any other is logged as clientRequestId and the service mints the id.',
  },
  CLIENT_IPV6_PREFIX: {
    section: 'browser-security',
    doc: 'Per-address limits (LOGIN_RATE_LIMIT, LOGIN_ADDRESS_BUDGET, the guess backoff) count every IPv6 client address within one prefix of this length as one address; IPv4 addresses count singly. Every spelling of an address (case, zero compression, brackets, zone id, IPv4-mapped IPv6) is the same address.',
  },
  PASSWORD_LOGIN: {
    section: 'features',
    doc: 'Allow login with username/password: the service creates a per-session secret as that user.',
  },
  ADMIN_ROUTES: { section: 'features', doc: 'Enable the /admin/secrets and /admin/sessions routes.' },
  SESSION_OPERATORS: {
    section: 'features',
    doc: "TigerGraph users (comma-separated, exact names) who may list and end any principal's sessions through /admin/sessions and tgbff sessions, authenticated against the admin server as the other /admin routes are; anyone else is 403 forbidden.",
  },
  OPENAPI_ROUTE: {
    section: 'features',
    doc: "Serve docs/openapi.yaml as GET /openapi.json (from the build's JSON copy, dist/openapi.json, written by npm run build); true also stops the start when the file is missing.",
    defaultText: 'on outside production when the file exists, off in production',
  },
  APP_DIR: {
    section: 'features',
    doc: "A built single-page app (e.g. Vite's dist/, with index.html) served at / from the service's own origin, instead of the demo console: files as they are, index.html for any other page path a browser navigates to (not /auth, /api, /admin, nor a path with a file extension), files under assets/ with an 8-character content hash in their name cached for a year (immutable), the rest revalidated (no-cache). The service's CSP applies: scripts and styles from the app's own files (Vite's default build), no inline ones. docs/frontend.md.",
  },
  DEMO_CONSOLE: {
    section: 'features',
    doc: 'Serve the demo console (public/) at /; false serves nothing there (a deployment whose app is elsewhere). Cannot be on with APP_DIR.',
    defaultText: 'on, off when APP_DIR is set',
  },
  LOGIN_RATE_LIMIT: {
    section: 'features',
    doc: 'Failed credential checks (logins and /admin Basic auth; a login whose graph TigerGraph refuses counts too) allowed per client address per window, whatever the username. Beyond it: 429 rate_limited with Retry-After. Successful logins are not guesses: they count against LOGIN_ADDRESS_BUDGET and LOGIN_CREDENTIAL_BUDGET. A check counts from its start until its verdict (so parallel guesses cannot overrun the limit): more parallel logins than this from one address get 429 even when they would all succeed.',
  },
  LOGIN_RATE_WINDOW: { section: 'features', doc: 'Length of the login rate-limit window in seconds.' },
  LOGIN_USER_LIMIT: {
    section: 'features',
    doc: 'Failed checks allowed per username per window from all addresses together. Keep it well above LOGIN_RATE_LIMIT: reaching it refuses that user everywhere until the window ends.',
  },
  LOGIN_BACKOFF_AFTER: {
    section: 'features',
    doc: 'Failed checks for one username from one address before each further one waits 1 s, 2 s, 4 s, … Other addresses are not delayed, so an attacker cannot lock the real user out.',
  },
  LOGIN_BACKOFF_MAX: { section: 'features', doc: 'The longest of those waits, in seconds.' },
  LOGIN_ADDRESS_BUDGET: {
    section: 'features',
    doc: 'Logins allowed per client address per LOGIN_RATE_WINDOW, successful and refused ones alike (secret, password, and single sign-on callbacks, each of which costs an upstream or IdP call). Beyond it: 429 rate_limited with Retry-After.',
  },
  LOGIN_CREDENTIAL_BUDGET: {
    section: 'features',
    doc: 'Successful logins allowed per credential (one secret, one user name for password login, or one IdP subject for single sign-on, with or without a credential map) per LOGIN_RATE_WINDOW, from all addresses together. Beyond it: 429 rate_limited with Retry-After.',
  },
  ADMIN_CREDENTIAL_BUDGET: {
    section: 'features',
    doc: 'Successful /admin calls (Basic auth the admin server accepted) allowed per TigerGraph user per LOGIN_RATE_WINDOW, from all addresses together, the user name counted exactly as TigerGraph authenticates it; each call costs admin-server calls. Beyond it: 429 rate_limited with Retry-After, before the admin server is asked. Failed ones count against the guess limits (LOGIN_RATE_LIMIT) instead.',
  },
  SESSIONS_PER_CREDENTIAL: {
    section: 'features',
    doc: "Live sessions one credential may have (a secret, the TigerGraph user of a password login, the IdP subject of a single sign-on), across all instances; a login beyond it ends that credential's oldest session (401 session_ended there; its token deleted, a password login's secret dropped). 1 is one session per person: each new login ends the others. The default serves a team of about 50 sharing one read-only secret with two browsers each.",
  },
  SESSIONS_ROUTE_BUDGET: {
    section: 'features',
    doc: "Calls of GET /auth/sessions and DELETE /auth/sessions (one or all) one principal (a secret, a password login's TigerGraph user, an IdP subject) may make per LOGIN_RATE_WINDOW, from all its sessions and instances together. Beyond it: 429 rate_limited with Retry-After. Each call reads every session on the principal's record (up to SESSIONS_PER_CREDENTIAL + 64, two Redis commands each) and an end calls TigerGraph; logout, everywhere included, is never counted. People sharing one secret share its budget.",
  },
  TOKEN_SWEEP_INTERVAL_MS: {
    section: 'features',
    doc: 'How often (ms) each instance looks for sessions that ended without a logout (idle or absolute timeout, removed by an admin) and deletes their tokens upstream; one instance at a time, under a lease. A token dies at most about this long after its session.',
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    section: 'tracing',
    doc: 'OTLP/HTTP collector base URL, e.g. http://otel-collector:4318; traces go to its /v1/traces. Setting it turns tracing on.',
  },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: {
    section: 'tracing',
    doc: 'OTLP/HTTP traces URL, used as given (instead of the base URL plus /v1/traces). Setting it turns tracing on.',
  },
  OTEL_SERVICE_NAME: { section: 'tracing', doc: 'The service.name of every span.' },
  OTEL_TRACES_SAMPLER: {
    section: 'tracing',
    doc: 'always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio. A parent counts only with TRACE_TRUST_PARENT.',
  },
  OTEL_TRACES_SAMPLER_ARG: { section: 'tracing', doc: 'The ratio of the traceidratio samplers, 0 to 1.' },
  OTEL_TRACES_EXPORTER: { section: 'tracing', doc: 'otlp, or none to turn tracing off.' },
  OTEL_SDK_DISABLED: { section: 'tracing', doc: 'true turns tracing off whatever else is set.' },
  TRACE_TRUST_PARENT: {
    section: 'tracing',
    doc: "Continue a caller's W3C traceparent instead of starting a trace per request. Only behind a proxy that sets or strips it: otherwise any client chooses trace ids and, with a parent-based sampler, whether its requests are sampled.",
  },
  OIDC_ISSUER: {
    section: 'single-sign-on',
    doc: "The identity provider's issuer URL, exactly as its discovery document states it; setting it turns OIDC login on (GET /auth/oidc/login). https in production.",
  },
  OIDC_CLIENT_ID: {
    section: 'single-sign-on',
    doc: "This service's client id at the identity provider; required with OIDC_ISSUER.",
  },
  OIDC_CLIENT_SECRET: {
    section: 'single-sign-on',
    doc: 'The client secret (client_secret_basic); required with OIDC_ISSUER. Never logged or shown.',
  },
  OIDC_REDIRECT_URI: {
    section: 'single-sign-on',
    doc: 'The callback registered at the identity provider: https://<this service>/auth/oidc/callback; required with OIDC_ISSUER.',
  },
  OIDC_SCOPES: {
    section: 'single-sign-on',
    doc: 'Scopes requested at login, space or comma list; must include openid; offline_access gets the refresh token that keeps the session going.',
  },
  OIDC_AUDIENCE: {
    section: 'single-sign-on',
    doc: "Resource indicator (RFC 8707) requested for the access token, which must carry it as aud; required with OIDC_ISSUER unless OIDC_CREDENTIAL_MAP is set (the map never relays the IdP's token, which may then be opaque). Set TigerGraph's Security.JWT.Audience to the same value (required too): without it TigerGraph accepts any JWT of the IdP, an ID token included, as a bearer.",
  },
  OIDC_POST_LOGIN_PATH: {
    section: 'single-sign-on',
    doc: 'Where the browser lands after login unless the login asked for another path (?return_to=); a path on this origin.',
  },
  OIDC_REFRESH_BEFORE: {
    section: 'single-sign-on',
    doc: "Refresh the identity provider access token this many seconds before it expires (with the refresh token, once per session across instances); keep it well below the IdP's access-token lifetime, or every request refreshes.",
  },
  OIDC_CONNECTIONS: {
    section: 'single-sign-on',
    doc: 'Connections each instance opens to each identity-provider origin at once (discovery, code exchanges, refreshes, revocations, the JWKS of back-channel logout); further calls wait for a free one within their timeout (10 s), so a burst of logins from many addresses cannot open a connection each.',
  },
  BACKCHANNEL_ADDRESS_BUDGET: {
    section: 'single-sign-on',
    doc: 'Back-channel logouts (POST /auth/oidc/backchannel-logout) per client address per LOGIN_RATE_WINDOW, each counted from its arrival until its logout token is checked; one whose token verifies is then taken back, so only forged, replayed or malformed ones (and those in flight) spend it. Beyond it: 429 rate_limited with Retry-After, before the token is looked at.',
  },
  OIDC_CREDENTIAL_MAP: {
    section: 'single-sign-on',
    doc: 'A YAML or JSON file of ordered rules: IdP claims (groups, roles, sub, email) to the TigerGraph graphs they open and the credential the service holds for them (secretFile, secretEnv, username with passwordFile or passwordEnv; never inline). Set: SSO sessions use tokens minted from the matching rule\'s credential, on every TigerGraph version; unset: the IdP\'s JWT is relayed (3.10+). Checked at start-up (docs/single-sign-on.md, "Credential map").',
  },
  MCP_RESOURCE: {
    section: 'ai-agents',
    doc: "Turns on the MCP endpoint at /mcp: the resource identifier agents ask the identity provider for (this service's https URL with /mcp). Every bearer must be an access token of OIDC_ISSUER with this as its aud; GET /.well-known/oauth-protected-resource names it. Must differ from OIDC_AUDIENCE.",
  },
  MCP_GRAPHS: {
    section: 'ai-agents',
    doc: "Graphs whose installed queries become tools when the person's graphs are not named by a credential-map rule (no OIDC_CREDENTIAL_MAP, or a rule of *); TigerGraph still decides which of them the person may read.",
  },
  MCP_SESSIONS_PER_PRINCIPAL: {
    section: 'ai-agents',
    doc: 'MCP sessions one person (IdP subject) may hold across all instances; a new one beyond it ends their least recently used.',
  },
  MCP_SESSION_IDLE_TIMEOUT: {
    section: 'ai-agents',
    doc: 'Seconds an MCP session lives without a request; then its Mcp-Session-Id is unknown (404) and the agent initializes again.',
  },
  MCP_MAX_BODY_BYTES: {
    section: 'ai-agents',
    doc: "Largest JSON-RPC request body /mcp reads; more is 413 before it is parsed. A tool call's own relayed request still meets MAX_BODY_BYTES.",
  },
  TOKEN_LEASE_TTL_MS: {
    section: 'features',
    doc: 'How long a token refresh lease lives in ms. The holder renews it while its upstream call runs; if the holder dies, other instances take over once it lapses.',
  },
};
