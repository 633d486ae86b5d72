import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config.js';
import { configErrorOf, keysOf } from './helpers.js';

describe('config redis mode', () => {
  it('when no Redis key is set, then the memory store is selected', () => {
    expect(loadConfig({}).redis).toEqual({ mode: 'memory', prefix: 'tgbff:' });
  });

  it('when REDIS_URL is set, then standalone mode carries the URL, credentials, TLS flag and timeout', () => {
    const { redis } = loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PASSWORD: 'pw', REDIS_TLS: 'true' });
    expect(redis).toEqual({
      mode: 'standalone',
      url: 'redis://127.0.0.1:6379',
      password: 'pw',
      tls: true,
      commandTimeoutMs: 800,
      failoverWaitMs: 10_000,
      failoverWaiters: 1000,
      logoutReplicaWaitMs: 400,
      sessionCache: { max: 10_000, ttlMs: 60_000 },
      prefix: 'tgbff:',
    });
  });

  it('when REDIS_LOGOUT_REPLICA_WAIT_MS is set, then it is taken if below the command timeout and refused at or above it', () => {
    const base = { REDIS_CLUSTER_NODES: 'n1:6379', REDIS_COMMAND_TIMEOUT_MS: '500' };
    const derived = loadConfig(base).redis;
    expect(derived.mode !== 'memory' && derived.logoutReplicaWaitMs).toBe(250);
    const taken = loadConfig({ ...base, REDIS_LOGOUT_REPLICA_WAIT_MS: '0' }).redis;
    expect(taken.mode !== 'memory' && taken.logoutReplicaWaitMs).toBe(0);
    const err = configErrorOf({ ...base, REDIS_LOGOUT_REPLICA_WAIT_MS: '500' });
    expect(keysOf(err)).toEqual(['REDIS_LOGOUT_REPLICA_WAIT_MS']);
    expect(err.message).toMatch(/below REDIS_COMMAND_TIMEOUT_MS \(500\)/);
  });

  it('when sentinels and a name are set, then sentinel mode lists each host and port', () => {
    const { redis } = loadConfig({
      REDIS_SENTINELS: 's1:26379, [::1]:26380,',
      REDIS_SENTINEL_NAME: 'mymaster',
      REDIS_SENTINEL_PASSWORD: 'spw',
    });
    expect(redis).toEqual({
      mode: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      name: 'mymaster',
      sentinelPassword: 'spw',
      tls: false,
      commandTimeoutMs: 800,
      failoverWaitMs: 10_000,
      failoverWaiters: 1000,
      logoutReplicaWaitMs: 400,
      sessionCache: { max: 10_000, ttlMs: 60_000 },
      prefix: 'tgbff:',
    });
  });

  it('when cluster nodes are set, then cluster mode lists them', () => {
    const { redis } = loadConfig({ REDIS_CLUSTER_NODES: 'n1:7000,n2:7001', REDIS_PREFIX: 'app:' });
    expect(redis).toMatchObject({
      mode: 'cluster',
      nodes: [
        { host: 'n1', port: 7000 },
        { host: 'n2', port: 7001 },
      ],
      prefix: 'app:',
    });
  });

  it('when two modes are set, then both keys are named as a conflict', () => {
    const err = configErrorOf({ REDIS_URL: 'redis://a:1', REDIS_CLUSTER_NODES: 'n1:7000' });
    expect(keysOf(err)).toEqual(['REDIS_URL', 'REDIS_CLUSTER_NODES']);
    expect(err.message).toContain('only one Redis mode');
  });

  it('when sentinels lack a name, then REDIS_SENTINEL_NAME is named', () => {
    expect(keysOf(configErrorOf({ REDIS_SENTINELS: 's1:26379' }))).toEqual(['REDIS_SENTINEL_NAME']);
  });

  it('when sentinel-only keys are set outside sentinel mode, then they are named', () => {
    const err = configErrorOf({ REDIS_URL: 'redis://a:1', REDIS_SENTINEL_NAME: 'm', REDIS_SENTINEL_PASSWORD: 'x' });
    expect(keysOf(err)).toEqual(['REDIS_SENTINEL_NAME', 'REDIS_SENTINEL_PASSWORD']);
  });

  it('when Redis credentials are set without any mode, then they are named rather than silently ignored', () => {
    expect(keysOf(configErrorOf({ REDIS_PASSWORD: 'pw' }))).toEqual(['REDIS_PASSWORD']);
  });

  describe('REDIS_CA_FILE', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tgbff-redis-ca-'));
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, pem);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('when it is set with TLS (REDIS_TLS or rediss://), then its PEM text goes with every mode', () => {
      expect(loadConfig({ REDIS_URL: 'rediss://r:6380', REDIS_CA_FILE: caFile }).redis).toMatchObject({
        mode: 'standalone',
        tls: true,
        ca: pem,
      });
      expect(
        loadConfig({ REDIS_SENTINELS: 's1:26379', REDIS_SENTINEL_NAME: 'm', REDIS_TLS: 'true', REDIS_CA_FILE: caFile })
          .redis,
      ).toMatchObject({ mode: 'sentinel', ca: pem });
      expect(
        loadConfig({ REDIS_CLUSTER_NODES: 'n1:7000', REDIS_TLS: 'yes', REDIS_CA_FILE: caFile }).redis,
      ).toMatchObject({ mode: 'cluster', ca: pem });
    });

    it('when it is set without TLS, or without any Redis mode, then it is named rather than silently ignored', () => {
      const err = configErrorOf({ REDIS_URL: 'redis://r:6379', REDIS_CA_FILE: caFile });
      expect(keysOf(err)).toEqual(['REDIS_CA_FILE']);
      expect(err.message).toContain('REDIS_TLS=true');
      expect(keysOf(configErrorOf({ REDIS_CA_FILE: caFile }))).toEqual(['REDIS_CA_FILE']);
    });

    it('when the file holds no certificate or is missing, then it is named', () => {
      writeFileSync(join(dir, 'empty.pem'), 'nothing here');
      expect(keysOf(configErrorOf({ REDIS_URL: 'rediss://r:6380', REDIS_CA_FILE: join(dir, 'empty.pem') }))).toEqual([
        'REDIS_CA_FILE',
      ]);
      expect(keysOf(configErrorOf({ REDIS_URL: 'rediss://r:6380', REDIS_CA_FILE: join(dir, 'missing.pem') }))).toEqual([
        'REDIS_CA_FILE',
      ]);
    });
  });

  it('when SESSION_CACHE is false or SESSION_CACHE_MAX 0, then the session cache is off', () => {
    const url = { REDIS_URL: 'redis://127.0.0.1:6379' };
    expect(loadConfig({ ...url, SESSION_CACHE: 'false' }).redis).toMatchObject({ sessionCache: false });
    expect(loadConfig({ ...url, SESSION_CACHE_MAX: '0' }).redis).toMatchObject({ sessionCache: false });
    expect(loadConfig({ ...url, SESSION_CACHE_TTL_MS: '250' }).redis).toMatchObject({
      sessionCache: { max: 10_000, ttlMs: 250 },
    });
  });
});
