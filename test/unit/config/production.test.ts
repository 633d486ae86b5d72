import { loadConfig } from '../../../src/config.js';
import { configErrorOf, keysOf } from './helpers.js';

// Random once, kept fixed: production refuses keys and secrets anyone could guess (see key-strength.ts).
const KEY = 'lokNLBEwutawgBgZJ0MPtswLlSG6Bsf4WPnKs70nSVg=';
const SECRET = 'AQBsNpyKHNxR5En9K1YMmTw3y9MC_Gdn0VOFCmIZ_gjZxr28';
const PRODUCTION = {
  NODE_ENV: 'production',
  TG_RESTPP_URL: 'https://tg.example.com/restpp',
  TG_GSQL_URL: 'https://tg.example.com',
  REDIS_URL: 'redis://redis:6379',
  SESSION_SECRET: SECRET,
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

  it('when production does not set the overload limits, then the event-loop limit is 200 ms and in flight is off; elsewhere both are off', () => {
    expect(loadConfig(PRODUCTION).overload).toEqual({ maxInFlight: 0, maxEventLoopDelayMs: 200 });
    expect(loadConfig({}).overload).toEqual({ maxInFlight: 0, maxEventLoopDelayMs: 0 });
    const set = { OVERLOAD_MAX_IN_FLIGHT: '500', OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' };
    expect(loadConfig({ ...PRODUCTION, ...set }).overload).toEqual({ maxInFlight: 500, maxEventLoopDelayMs: 0 });
    expect(keysOf(configErrorOf({ OVERLOAD_MAX_IN_FLIGHT: '-1' }))).toEqual(['OVERLOAD_MAX_IN_FLIGHT']);
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

  it.each([' production', 'production ', 'production\n'])(
    'when NODE_ENV is %j (spaces around it), then the start is refused: libraries would not read it as production',
    (value) => {
      const err = configErrorOf({ ...PRODUCTION, NODE_ENV: value });
      expect(err.issues).toEqual([
        {
          key: 'NODE_ENV',
          message:
            'must be one of development, production, test with no spaces around it (libraries read the value as it is)',
        },
      ]);
    },
  );

  it.each([
    ['NODE_ENV=Production', { NODE_ENV: 'Production' }],
    ['NODE_ENV=prod', { NODE_ENV: 'prod' }],
    ['NODE_ENV=staging', { NODE_ENV: 'staging' }],
  ])('when %s, then the start is refused naming the accepted values', (_what, env) => {
    const err = configErrorOf({ ...PRODUCTION, ...env });
    expect(err.issues).toEqual([
      { key: 'NODE_ENV', message: 'must be one of development, production, test (exactly, lower case)' },
    ]);
  });

  it.each([
    ['one character repeated', 'p'.repeat(48), 'it is one character repeated'],
    ['a short run repeated', 'abc123'.repeat(8), 'it is one short run repeated'],
    ['a few characters', 'abcdefghabcdefghhgfedcbahgfedcbaabcdefghabcd', 'it uses fewer than 10 different characters'],
    ['low entropy', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaabcdefghijkl', 'its estimated entropy is below 96 bits'],
    ['a word repeated with a suffix', 'passwordpasswordpasswordpassword!X7y', 'it repeats long parts of itself'],
  ])(
    'when production has a SESSION_SECRET that is %s, then it is refused, naming which and never the value',
    (_what, weak, why) => {
      const err = configErrorOf({ ...PRODUCTION, SESSION_SECRET: `${SECRET},${weak}` });
      expect(err.issues).toEqual([
        {
          key: 'SESSION_SECRET',
          message: `secret 2 is too weak for production: ${why}; make one with: openssl rand -base64 48`,
        },
      ]);
      expect(err.message).not.toContain(weak);
    },
  );

  it.each([
    ['all zero', Buffer.alloc(32), 'it is one byte repeated'],
    ['one byte repeated', Buffer.alloc(32, 3), 'it is one byte repeated'],
    ['a 16-byte pattern twice', Buffer.from('0123456789abcdef0123456789abcdef'), 'it is one short run repeated'],
    ['eight byte values', Buffer.from('01234567765432100246135713570246'), 'it uses fewer than 10 different bytes'],
  ])('when production has an encryption key that is %s, then it is refused, naming its id', (_what, key, why) => {
    const err = configErrorOf({ ...PRODUCTION, SESSION_ENCRYPTION_KEYS: `new:${KEY},old:${key.toString('base64')}` });
    expect(err.issues).toEqual([
      {
        key: 'SESSION_ENCRYPTION_KEYS',
        message: `key "old" is too weak for production: ${why}; make one with: openssl rand -base64 32`,
      },
    ]);
  });

  it('when production sets TRUST_PROXY=true, then it is refused naming the fix; a count or a subnet passes', () => {
    expect(keysOf(configErrorOf({ ...PRODUCTION, TRUST_PROXY: 'true' }))).toEqual(['TRUST_PROXY']);
    expect(configErrorOf({ ...PRODUCTION, TRUST_PROXY: 'TRUE' }).message).toContain(
      'name your proxies instead, by address or subnet (e.g. TRUST_PROXY=10.0.0.0/8) or by count (e.g. TRUST_PROXY=1)',
    );
    expect(loadConfig({ ...PRODUCTION, TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ ...PRODUCTION, TRUST_PROXY: '10.0.0.0/8' }).trustProxy).toEqual(['10.0.0.0/8']);
    expect(loadConfig({ NODE_ENV: 'development', TRUST_PROXY: 'true' }).trustProxy).toBe(true);
  });

  it('when outside production the secret is weak, then it is still accepted (tests and local runs use short fixed ones)', () => {
    expect(
      loadConfig({
        NODE_ENV: 'test',
        SESSION_SECRET: 's'.repeat(32),
        SESSION_ENCRYPTION_KEYS: `k:${Buffer.alloc(32).toString('base64')}`,
      }).production,
    ).toBe(false);
  });
});
