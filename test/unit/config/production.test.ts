import { loadConfig } from '../../../src/config.js';
import { configErrorOf, keysOf } from './helpers.js';

const KEY = Buffer.alloc(32, 3).toString('base64');
const PRODUCTION = {
  NODE_ENV: 'production',
  TG_RESTPP_URL: 'https://tg.example.com/restpp',
  TG_GSQL_URL: 'https://tg.example.com',
  REDIS_URL: 'redis://redis:6379',
  SESSION_SECRET: 'p'.repeat(48),
  SESSION_ENCRYPTION_KEYS: `2024:${KEY}`,
};

describe('config in production', () => {
  it('when production has everything it needs, then nothing is generated and the simulator is off', () => {
    const config = loadConfig(PRODUCTION);
    expect(config.production).toBe(true);
    expect(config.simulator).toBe(false);
    expect(config.generated).toEqual([]);
    expect(config.redis.mode).toBe('standalone');
  });

  it('when production does not ask for the OpenAPI route, then it is off; OPENAPI_ROUTE=true turns it on', () => {
    expect(loadConfig(PRODUCTION).openapiRoute).toBe('off');
    expect(loadConfig({ ...PRODUCTION, OPENAPI_ROUTE: 'true' }).openapiRoute).toBe('required');
    expect(loadConfig({ OPENAPI_ROUTE: 'false' }).openapiRoute).toBe('off');
  });

  it('when production lacks the data server, Redis, secret and keys, then each missing key is named at once', () => {
    const err = configErrorOf({ NODE_ENV: 'production' });
    expect(keysOf(err).sort()).toEqual(['REDIS_URL', 'SESSION_ENCRYPTION_KEYS', 'SESSION_SECRET', 'TG_RESTPP_URL']);
    expect(err.message).toContain('TG_RESTPP_URL: is required in production');
  });

  it.each(['TG_RESTPP_URL', 'REDIS_URL', 'SESSION_SECRET', 'SESSION_ENCRYPTION_KEYS'])(
    'when production lacks only %s, then exactly that key is named',
    (key) => {
      expect(keysOf(configErrorOf({ ...PRODUCTION, [key]: undefined }))).toEqual([key]);
    },
  );

  it('when production sets COOKIE_SECURE=false, then the start is refused naming COOKIE_SECURE', () => {
    expect(keysOf(configErrorOf({ ...PRODUCTION, COOKIE_SECURE: 'false' }))).toEqual(['COOKIE_SECURE']);
  });

  it('when production uses sentinels or a cluster instead of REDIS_URL, then that satisfies the Redis requirement', () => {
    const sentinel = loadConfig({
      ...PRODUCTION,
      REDIS_URL: undefined,
      REDIS_SENTINELS: 's1:26379',
      REDIS_SENTINEL_NAME: 'mymaster',
    });
    expect(sentinel.redis.mode).toBe('sentinel');
    const cluster = loadConfig({ ...PRODUCTION, REDIS_URL: undefined, REDIS_CLUSTER_NODES: 'n1:7000' });
    expect(cluster.redis.mode).toBe('cluster');
  });
});
