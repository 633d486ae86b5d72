import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { packageVersion } from './version.js';

/** The service's metrics, in their own registry (no global default registry: tests build many apps). */
export interface Metrics {
  registry: Registry;
  /** Upstream token calls: op = mint | refresh | delete, result = ok | error. */
  tokenCalls: Counter<'op' | 'result'>;
  /** Tokens deleted upstream by the service: reason = replaced | session_end, result = ok | error. */
  tokenDeletes: Counter<'reason' | 'result'>;
  /** Requests that waited for another holder's refresh instead of calling upstream. */
  leaseWaits: Counter<'outcome'>;
  relayDuration: Histogram<'method' | 'status_class'>;
  /**
   * Every request the public port answered, from arrival to the last byte (or the client gone): route = the
   * route pattern (`/api/*`, `/auth/login`, …; `other` when no route matched: static files, 404s, answers of a
   * step), method = one of HTTP_METHODS or `other`, status_class = 1xx…5xx or `aborted`. No label value is
   * chosen by a client.
   */
  httpDuration: Histogram<'route' | 'method' | 'status_class'>;
  /** kind = timeout | unavailable | rejected | protocol | too_large (an answer over RELAY_MAX_RESPONSE_BYTES). */
  upstreamErrors: Counter<'kind'>;
  /** DETACHED_QUERIES: event = started | refused (over the cap) | foreign (an id not the caller's, answered as unknown). */
  detachedQueries: Counter<'event'>;
  redisErrors: Counter;
  /** result = ok | invalid | rate_limited | error. */
  logins: Counter<'result'>;
  /** Credential guesses refused by a limit: route = login | admin, scope = address | user | user_address. */
  guessesLimited: Counter<'route' | 'scope'>;
  /** Logins refused because the address's or the credential's login budget was spent: scope = address | credential. */
  loginBudgetLimited: Counter<'scope'>;
  /** Sessions ended because their credential started one more than SESSIONS_PER_CREDENTIAL: login = secret | password | oidc. */
  sessionsEvicted: Counter<'login'>;
  /**
   * Sessions the service ended, by why (the audit trail's `session.ended` reasons but the timeouts): reason =
   * logout | ended (by the person, from another of their sessions) | operator | replaced | evicted |
   * backchannel | idp_refused.
   */
  sessionsEnded: Counter<'reason'>;
  /** Calls of GET/DELETE /auth/sessions… refused by SESSIONS_ROUTE_BUDGET: route = list | end. */
  sessionRoutesLimited: Counter<'route'>;
  /** Relayed requests refused by a concurrency limit: scope = session | credential. */
  relayLimited: Counter<'scope'>;
  /** Readiness probes actually sent to a dependency (shared and cached): check = store | upstream | idp, result = ok | error. */
  readinessProbes: Counter<'check' | 'result'>;
  activeRequests: Gauge;
  /** Requests refused with 503 overloaded (OVERLOAD_*): reason = in_flight | event_loop_delay. */
  overloadRefusals: Counter<'reason'>;
  /** The mean event-loop delay of the last sample window, in seconds (when OVERLOAD_MAX_EVENT_LOOP_DELAY_MS is on). */
  eventLoopDelayMean: Gauge;
  /** The session cache (CLIENT TRACKING): lookups by result, invalidations by kind, entries held. */
  sessionCache: {
    lookups: Counter<'result'>;
    invalidations: Counter<'kind'>;
    size: Gauge;
  };
  /** Errors that reached the process-level safety net (kind = exception | rejection): each one is a bug. */
  uncaughtErrors: Counter<'kind'>;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  // The release answering, as Prometheus' usual build-info gauge: always 1, the version in a label.
  new Gauge({
    name: 'tgbff_build_info',
    help: 'The tgbff release running (value 1)',
    labelNames: ['version'],
    registers,
  })
    .labels(packageVersion())
    .set(1);
  const metrics: Metrics = {
    registry,
    tokenCalls: new Counter({
      name: 'tgbff_token_calls_total',
      help: 'Upstream token calls by operation and result',
      labelNames: ['op', 'result'],
      registers,
    }),
    tokenDeletes: new Counter({
      name: 'tgbff_token_deletes_total',
      help: 'Tokens the service deleted upstream, by why and result',
      labelNames: ['reason', 'result'],
      registers,
    }),
    leaseWaits: new Counter({
      name: 'tgbff_lease_waits_total',
      help: 'Token requests that waited for a refresh held by another request or instance',
      labelNames: ['outcome'],
      registers,
    }),
    relayDuration: new Histogram({
      name: 'tgbff_relay_duration_seconds',
      help: 'Relayed request duration until the response headers arrived',
      labelNames: ['method', 'status_class'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    httpDuration: new Histogram({
      name: 'tgbff_http_request_duration_seconds',
      help: 'Requests the public port answered, by route pattern, method and status class, until the last byte',
      labelNames: ['route', 'method', 'status_class'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    upstreamErrors: new Counter({
      name: 'tgbff_upstream_errors_total',
      help: 'Data/admin server failures by kind',
      labelNames: ['kind'],
      registers,
    }),
    detachedQueries: new Counter({
      name: 'tgbff_detached_queries_total',
      help: 'Detached (GSQL-ASYNC) queries: started, refused over the cap, foreign ids answered as unknown',
      labelNames: ['event'],
      registers,
    }),
    redisErrors: new Counter({ name: 'tgbff_redis_errors_total', help: 'Redis command failures', registers }),
    logins: new Counter({
      name: 'tgbff_logins_total',
      help: 'Login attempts by result',
      labelNames: ['result'],
      registers,
    }),
    guessesLimited: new Counter({
      name: 'tgbff_guesses_limited_total',
      help: 'Login and admin Basic-auth attempts refused by a guess limit, by route and limit',
      labelNames: ['route', 'scope'],
      registers,
    }),
    loginBudgetLimited: new Counter({
      name: 'tgbff_login_budget_limited_total',
      help: 'Logins (scope address, credential), admin calls (admin_credential) and back-channel logouts (backchannel_address) refused because their budget was spent',
      labelNames: ['scope'],
      registers,
    }),
    sessionsEvicted: new Counter({
      name: 'tgbff_sessions_evicted_total',
      help: 'Sessions ended because their credential went over SESSIONS_PER_CREDENTIAL, by login kind',
      labelNames: ['login'],
      registers,
    }),
    sessionsEnded: new Counter({
      name: 'tgbff_sessions_ended_total',
      help: 'Sessions the service ended (a timeout is not counted), by why: logout, ended by the person, operator, replaced, evicted, backchannel, idp_refused',
      labelNames: ['reason'],
      registers,
    }),
    sessionRoutesLimited: new Counter({
      name: 'tgbff_session_routes_limited_total',
      help: "Calls of GET and DELETE /auth/sessions refused because the principal's SESSIONS_ROUTE_BUDGET was spent, by route",
      labelNames: ['route'],
      registers,
    }),
    relayLimited: new Counter({
      name: 'tgbff_relay_limited_total',
      help: 'Relayed requests refused with 429 too_many_requests, by the limit reached',
      labelNames: ['scope'],
      registers,
    }),
    readinessProbes: new Counter({
      name: 'tgbff_readiness_probes_total',
      help: 'Readiness probes sent to a dependency (one shared, cached probe per check, at most about one a second)',
      labelNames: ['check', 'result'],
      registers,
    }),
    activeRequests: new Gauge({ name: 'tgbff_active_requests', help: 'Requests in flight', registers }),
    overloadRefusals: new Counter({
      name: 'tgbff_overload_refusals_total',
      help: 'Requests refused with 503 overloaded before any work, by the limit reached: in_flight (OVERLOAD_MAX_IN_FLIGHT) or event_loop_delay (OVERLOAD_MAX_EVENT_LOOP_DELAY_MS)',
      labelNames: ['reason'],
      registers,
    }),
    eventLoopDelayMean: new Gauge({
      name: 'tgbff_event_loop_delay_mean_seconds',
      help: 'Mean event-loop delay over the last overload sample window (500 ms), as the overload guard sees it',
      registers,
    }),
    sessionCache: {
      lookups: new Counter({
        name: 'tgbff_session_cache_lookups_total',
        help: 'Session loads by result: hit (process memory), miss (read from Redis and tracked), shared (joined a read in flight), bypass (tracking not established)',
        labelNames: ['result'],
        registers,
      }),
      invalidations: new Counter({
        name: 'tgbff_session_cache_invalidations_total',
        help: 'Session cache invalidations: key (Redis reported a write) or flush (all dropped: connection lost, null invalidation)',
        labelNames: ['kind'],
        registers,
      }),
      size: new Gauge({ name: 'tgbff_session_cache_entries', help: 'Sessions held in the session cache', registers }),
    },
    uncaughtErrors: new Counter({
      name: 'tgbff_uncaught_errors_total',
      help: 'Uncaught exceptions and unhandled rejections caught by the process safety net',
      labelNames: ['kind'],
      registers,
    }),
  };
  startAtZero(metrics);
  return metrics;
}

/** Each label value a counter documents above, crossed: the label sets it can count. */
const crossed = (...axes: Array<[string, readonly string[]]>): Array<Record<string, string>> =>
  axes.reduce<Array<Record<string, string>>>(
    (sets, [label, values]) => sets.flatMap((set) => values.map((value) => ({ ...set, [label]: value }))),
    [{}],
  );

/**
 * Every label set of the counters a dashboard sums over, exported at zero from the start: a panel over a
 * series that appears only once something happened shows "No data", which an operator reads as a broken
 * scrape (deploy/grafana/tigergraph-bff.json; the readiness probe of the IdP appears when it is used).
 */
function startAtZero(m: Metrics): void {
  const zero = <L extends string>(counter: Counter<L>, sets: Array<Record<string, string>>) => {
    for (const labels of sets) counter.inc(labels as Partial<Record<L, string>>, 0);
  };
  const results: [string, readonly string[]] = ['result', ['ok', 'error']];
  zero(m.tokenCalls, crossed(['op', ['mint', 'refresh', 'delete']], results));
  zero(m.tokenDeletes, crossed(['reason', ['replaced', 'session_end']], results));
  zero(m.leaseWaits, crossed(['outcome', ['coalesced', 'token', 'took_over', 'stale', 'unavailable']]));
  zero(m.upstreamErrors, crossed(['kind', ['timeout', 'unavailable', 'rejected', 'protocol', 'too_large']]));
  zero(m.detachedQueries, crossed(['event', ['started', 'refused', 'foreign']]));
  zero(m.logins, crossed(['result', ['ok', 'invalid', 'rate_limited', 'error']]));
  zero(m.guessesLimited, crossed(['route', ['login', 'admin']], ['scope', ['address', 'user', 'user_address']]));
  zero(m.loginBudgetLimited, crossed(['scope', ['address', 'credential', 'admin_credential', 'backchannel_address']]));
  zero(m.sessionsEvicted, crossed(['login', ['secret', 'password', 'oidc']]));
  zero(
    m.sessionsEnded,
    crossed(['reason', ['logout', 'ended', 'operator', 'replaced', 'evicted', 'backchannel', 'idp_refused']]),
  );
  zero(m.sessionRoutesLimited, crossed(['route', ['list', 'end']]));
  zero(m.relayLimited, crossed(['scope', ['session', 'credential']]));
  zero(m.readinessProbes, crossed(['check', ['store', 'upstream']], results));
  zero(m.uncaughtErrors, crossed(['kind', ['exception', 'rejection']]));
  // Histograms: the commonest answer of each, so a latency panel reads 0 requests, not "No data".
  m.httpDuration.zero({ route: '/api/*', method: 'GET', status_class: '2xx' });
  m.relayDuration.zero({ method: 'GET', status_class: '2xx' });
}
