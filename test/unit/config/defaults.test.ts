import { loadConfig } from '../../../src/config.js';

describe('config defaults', () => {
  it('when the environment is empty, then every key takes its documented default', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      nodeEnv: 'development',
      production: false,
      port: 8080,
      host: '0.0.0.0',
      metrics: { port: 9464, host: '127.0.0.1' },
      tigergraph: { version: '3.9.3', tokenLifetimeSeconds: 43200, refreshBeforeSeconds: 600 },
      simulator: true,
      redis: { mode: 'memory', prefix: 'tgbff:' },
      session: {
        idleTimeoutSeconds: 1800,
        absoluteTimeoutSeconds: 43200,
        cookieName: '__Host-tgbff',
        cookieSecure: true,
      },
      allowedOrigins: [],
      csrfHeader: 'x-requested-with',
      trustProxy: false,
      upstreamTimeoutMs: 30000,
      maxBodyBytes: 1048576,
      upstreamConnections: 128,
      relaySessionConcurrency: 16,
      relayForwardHeaders: [],
      clientTimeouts: { headersMs: 10000, requestMs: 30000 },
      passwordLogin: false,
      adminRoutes: false,
      openapiRoute: 'if-present',
      logLevel: 'info',
      shutdownTimeoutMs: 10000,
      loginRateLimit: { max: 10, windowSeconds: 60, userMax: 100, backoffAfter: 5, backoffMaxSeconds: 300 },
    });
    expect(config.tigergraph.restppUrl).toBeUndefined();
    expect(config.tigergraph.gsqlUrl).toBeUndefined();
    expect(config.tigergraph.ca).toBeUndefined();
    expect(config.relayAllow).toBeUndefined();
  });

  it('when values are blank (as in a copied .env.example), then they count as unset', () => {
    const config = loadConfig({ PORT: '', SESSION_SECRET: '  ', REDIS_URL: '', TG_RESTPP_URL: '' });
    expect(config.port).toBe(8080);
    expect(config.redis.mode).toBe('memory');
    expect(config.simulator).toBe(true);
    expect(config.generated).toContain('SESSION_SECRET');
  });

  it('when COOKIE_SECURE is false, then the default cookie name drops the __Host- prefix', () => {
    expect(loadConfig({ COOKIE_SECURE: 'false' }).session.cookieName).toBe('tgbff');
    expect(loadConfig({ COOKIE_SECURE: 'no', COOKIE_NAME: 'mine' }).session.cookieName).toBe('mine');
  });

  it('when every key is given, then each value reaches the config in its typed form', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const config = loadConfig({
      NODE_ENV: 'test',
      PORT: '0',
      HOST: '127.0.0.1',
      TG_RESTPP_URL: 'https://tg.example.com/restpp/',
      TG_GSQL_URL: 'https://tg.example.com',
      TG_VERSION: '4.1',
      TG_TOKEN_LIFETIME: '3600',
      TOKEN_REFRESH_BEFORE: '60',
      REDIS_URL: 'rediss://cache.example.com:6380/0',
      REDIS_USERNAME: 'bff',
      REDIS_PASSWORD: 'pw-123456',
      REDIS_COMMAND_TIMEOUT_MS: '250',
      STORE_FAILOVER_WAIT_MS: '7000',
      STORE_FAILOVER_WAITERS: '50',
      SESSION_CACHE: 'true',
      SESSION_CACHE_MAX: '500',
      SESSION_CACHE_TTL_MS: '5000',
      REDIS_PREFIX: 'x:',
      SESSION_SECRET: `${'a'.repeat(32)},${'b'.repeat(40)}`,
      SESSION_ENCRYPTION_KEYS: `k2:${key},k1:${Buffer.alloc(32, 1).toString('base64url')}`,
      SESSION_IDLE_TIMEOUT: '60',
      SESSION_ABSOLUTE_TIMEOUT: '3600',
      COOKIE_NAME: 'sid',
      ALLOWED_ORIGINS: 'HTTPS://App.Example.com:443/, http://localhost:5173, http://LOCALHOST:80',
      METRICS_PORT: 'off',
      METRICS_HOST: '0.0.0.0',
      CSRF_HEADER: 'X-CSRF',
      RELAY_ALLOW: 'GET /query/, /graph/',
      UPSTREAM_TIMEOUT_MS: '5000',
      MAX_BODY_BYTES: '2048',
      PASSWORD_LOGIN: 'yes',
      ADMIN_ROUTES: '1',
      TRUST_PROXY: '2',
      LOG_LEVEL: 'DEBUG',
      SHUTDOWN_TIMEOUT_MS: '0',
      LOGIN_RATE_LIMIT: '3',
      LOGIN_RATE_WINDOW: '30',
      TOKEN_LEASE_TTL_MS: '2500',
      TOKEN_SWEEP_INTERVAL_MS: '1500',
    });
    expect(config.simulator).toBe(false);
    expect(config.tigergraph).toEqual({
      restppUrl: 'https://tg.example.com/restpp',
      gsqlUrl: 'https://tg.example.com',
      version: '4.1',
      tokenLifetimeSeconds: 3600,
      refreshBeforeSeconds: 60,
      leaseTtlMs: 2500,
      sweepIntervalMs: 1500,
    });
    expect(config.redis).toEqual({
      mode: 'standalone',
      url: 'rediss://cache.example.com:6380/0',
      username: 'bff',
      password: 'pw-123456',
      tls: true,
      commandTimeoutMs: 250,
      failoverWaitMs: 7000,
      failoverWaiters: 50,
      logoutReplicaWaitMs: 125,
      sessionCache: { max: 500, ttlMs: 5000 },
      prefix: 'x:',
    });
    expect(config.session.secrets).toEqual(['a'.repeat(32), 'b'.repeat(40)]);
    expect(config.session.encryptionKeys.map((k) => [k.id, k.key.length])).toEqual([
      ['k2', 32],
      ['k1', 32],
    ]);
    expect(config.session.encryptionKeys[0]?.key.equals(Buffer.alloc(32, 7))).toBe(true);
    expect(config.session.cookieName).toBe('sid');
    expect(config.allowedOrigins).toEqual(['https://app.example.com', 'http://localhost:5173', 'http://localhost']);
    expect(config.metrics).toEqual({ port: null, host: '0.0.0.0' });
    expect(config.csrfHeader).toBe('x-csrf');
    expect(config.relayAllow).toBe('GET /query/, /graph/');
    expect(config).toMatchObject({
      port: 0,
      host: '127.0.0.1',
      upstreamTimeoutMs: 5000,
      maxBodyBytes: 2048,
      passwordLogin: true,
      adminRoutes: true,
      trustProxy: 2,
      logLevel: 'debug',
      shutdownTimeoutMs: 0,
      loginRateLimit: { max: 3, windowSeconds: 30, userMax: 100, backoffAfter: 5, backoffMaxSeconds: 300 },
      generated: [],
    });
  });
});
