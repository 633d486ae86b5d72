import { TigerGraphError } from '@tigergraph-bff/client';
import {
  addressOf,
  dependencyFaults,
  describeFault,
  faultKindOf,
} from '../../../src/observability/dependency-faults.js';
import { dependencyTargets } from '../../../src/observability/dependency-targets.js';
import type { Fault, FaultLog } from '../../../src/observability/fault-log.js';

const coded = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('dependency faults: the kind of a failure, by its code', () => {
  it.each([
    ['ECONNREFUSED', 'refused'],
    ['ETIMEDOUT', 'timeout'],
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout'],
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout'],
    ['ENOTFOUND', 'dns'],
    ['EAI_AGAIN', 'dns'],
    ['EHOSTUNREACH', 'unreachable'],
    ['ECONNRESET', 'unreachable'],
    ['UND_ERR_SOCKET', 'unreachable'],
    ['CERT_HAS_EXPIRED', 'tls'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
    ['EPROTO', 'tls'],
    ['HPE_INVALID_CONSTANT', 'protocol'],
  ])('when the code is %s, then the kind is %s', (code, kind) => {
    expect(faultKindOf(coded(code))).toBe(kind);
    // Wrapped as undici and the client library wrap it: found on the cause, or the first of an AggregateError.
    expect(faultKindOf(new Error('fetch failed', { cause: coded(code) }))).toBe(kind);
    expect(faultKindOf(new AggregateError([coded(code)]))).toBe(kind);
  });

  it("when Redis refuses the credentials, then the kind is auth (by the reply's code word)", () => {
    expect(faultKindOf(new Error('WRONGPASS invalid username-password pair or user is disabled.'))).toBe('auth');
    expect(faultKindOf(new Error('NOAUTH Authentication required.'))).toBe('auth');
  });

  it("when the client library's own deadline or parser fails, then its kind decides", () => {
    expect(faultKindOf(new TigerGraphError('timeout', 'no answer within 1000 ms'))).toBe('timeout');
    expect(faultKindOf(new TigerGraphError('protocol', 'unusable answer'))).toBe('protocol');
  });

  it('when the error is not an expected fault (a bug), then there is no kind and no description', () => {
    expect(faultKindOf(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBeUndefined();
    expect(faultKindOf(coded('ERR_SOMETHING_ELSE'))).toBeUndefined();
    const targets = dependencyTargets({ redis: { mode: 'memory', prefix: 'p:' }, restppUrl: 'http://tg:9000' });
    expect(describeFault('tigergraph', targets.tigergraph!, new TypeError('x'))).toBeUndefined();
  });
});

describe('dependency faults: what a line says', () => {
  const redis = {
    mode: 'standalone' as const,
    url: 'redis://bff:s3cret-pass@redis.internal:6380/0',
    prefix: 'p:',
    tls: false,
    commandTimeoutMs: 800,
    failoverWaitMs: 0,
    failoverWaiters: 0,
    logoutReplicaWaitMs: 0,
    sessionCache: false as const,
  };
  const targets = dependencyTargets({
    redis,
    restppUrl: 'https://tg.example.com/restpp',
    gsqlUrl: 'https://tg.example.com',
    oidcIssuer: 'https://idp.example.com/realms/x',
  });

  it("when Redis's URL carries a password, then the address is its host and port only", () => {
    expect(targets.redis).toMatchObject({ address: 'redis.internal:6380', setting: 'REDIS_URL' });
    expect(JSON.stringify(targets)).not.toContain('s3cret');
    expect(addressOf('not a url')).toBe('(unparsable URL)');
  });

  it('when a TLS handshake fails, then the setting names the CA setting too', () => {
    expect(describeFault('tigergraph', targets.tigergraph!, coded('CERT_HAS_EXPIRED'))).toMatchObject({
      fault: 'tigergraph_tls',
      setting: 'TG_RESTPP_URL, TG_CA_FILE',
      code: 'CERT_HAS_EXPIRED',
    });
  });

  it("when TG_GSQL_URL is unset, then the admin server is TG_RESTPP_URL's origin and both settings are named", () => {
    const derived = dependencyTargets({
      redis: { mode: 'memory', prefix: 'p:' },
      restppUrl: 'https://tg.example.com/restpp',
    });
    expect(targets.tigergraph_admin).toMatchObject({ address: 'https://tg.example.com', setting: 'TG_GSQL_URL' });
    expect(derived.tigergraph_admin).toMatchObject({
      address: 'https://tg.example.com',
      setting: 'TG_GSQL_URL, TG_RESTPP_URL',
    });
    expect(describeFault('tigergraph_admin', derived.tigergraph_admin!, coded('ECONNREFUSED'))).toMatchObject({
      fault: 'tigergraph_admin_refused',
      setting: 'TG_GSQL_URL, TG_RESTPP_URL',
    });
  });

  it("when the IdP's TLS handshake fails, then the setting names NODE_EXTRA_CA_CERTS, where its private CA goes", () => {
    expect(describeFault('idp', targets.idp!, coded('DEPTH_ZERO_SELF_SIGNED_CERT'))).toMatchObject({
      fault: 'idp_tls',
      setting: 'OIDC_ISSUER, NODE_EXTRA_CA_CERTS',
      hint: expect.stringContaining('a private CA goes in NODE_EXTRA_CA_CERTS'),
    });
  });

  it('when Redis refuses the credentials, then the setting names the credential settings', () => {
    expect(describeFault('redis', targets.redis!, new Error('WRONGPASS invalid'))).toMatchObject({
      fault: 'redis_auth',
      setting: "REDIS_USERNAME, REDIS_PASSWORD (or the URL's user:password)",
    });
  });

  it('when a cause has no code of its own, then it counts under the latest fault of its dependency', () => {
    const reported: Fault[] = [];
    const log: FaultLog = { report: (f) => void reported.push(f), close: () => undefined };
    const faults = dependencyFaults(log, targets);
    expect(faults.report('redis', new Error('Connection is closed.'))).toBe(false);
    expect(faults.report('redis', coded('ECONNREFUSED'))).toBe(true);
    expect(faults.report('redis', new Error('Connection is closed.'))).toBe(true);
    expect(reported.map((f) => f.fault)).toEqual(['redis_refused', 'redis_refused']);
    expect(faults.latest('redis')).toMatchObject({ fault: 'redis_refused', setting: 'REDIS_URL' });
    faults.answered('redis');
    expect(faults.latest('redis')).toBeUndefined();
    expect(faults.report('redis', new Error('Connection is closed.'))).toBe(false);
  });

  it('when a dependency is not configured (no IdP), then its failures are not faults of it', () => {
    const none = dependencyFaults(
      { report: () => undefined, close: () => undefined },
      dependencyTargets({ redis: { mode: 'memory', prefix: 'p:' }, restppUrl: 'http://tg:9000' }),
    );
    expect(none.report('idp', coded('ECONNREFUSED'))).toBe(false);
    expect(none.report('redis', coded('ECONNREFUSED'))).toBe(false);
  });
});
