import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { request } from 'undici';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle } from '../../../src/simulator/types.js';
import { uniquePrefix } from '../../helpers/redis-prefix.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { assertNoEscape } from './hostile-rig.js';
import { dropPrefix, processEnv } from './process-env.js';

/**
 * Issue 21, item 4: a client address is one key whatever its spelling, and an IPv6 client is its /64. A real
 * service process trusting loopback (so this test's X-Forwarded-For names the client, as a balancer's
 * would). Before the fix each spelling of one address had a fresh budget (13 limiter keys for 2
 * addresses), and rotating through one /64 never reached 429.
 */
const FAILED_PER_ADDRESS = 3;
const LOGINS_PER_ADDRESS = 4;

describe('hostile client: spelling one address many ways', () => {
  let sim: SimulatorHandle;
  let bff: ServiceProcess;
  let redis: Redis;
  let secret: string;
  const prefix = uniquePrefix('address-spelling');

  beforeAll(async () => {
    sim = await startSimulator({});
    secret = sim.createSecret({ alias: 'spelling' }).value;
    redis = new Redis('redis://127.0.0.1:6379');
    bff = await startServiceProcess(
      {
        ...processEnv(prefix),
        TG_RESTPP_URL: sim.restppUrl,
        TG_VERSION: sim.version,
        TRUST_PROXY: 'loopback',
        LOGIN_RATE_LIMIT: String(FAILED_PER_ADDRESS),
        LOGIN_ADDRESS_BUDGET: String(LOGINS_PER_ADDRESS),
      },
      30_000,
    );
  });
  afterAll(async () => {
    await bff?.kill();
    await dropPrefix(prefix);
    redis?.disconnect();
    await sim?.close();
  });

  const login = async (from: string, body: Record<string, string>): Promise<{ status: number; code?: string }> => {
    const res = await request(`${bff.url}/auth/login`, {
      method: 'POST',
      headers: { 'x-requested-with': 'XMLHttpRequest', 'content-type': 'application/json', 'x-forwarded-for': from },
      body: JSON.stringify(body),
    });
    const text = await res.body.text();
    const code = res.statusCode >= 400 ? (JSON.parse(text) as { error?: { code?: string } }).error?.code : undefined;
    return { status: res.statusCode, ...(code && { code }) };
  };
  const wrong = { secret: 'not-a-secret-anyone-has-0123456789' };
  const limiterKeys = async (pattern: string) => (await redis.keys(`${prefix}rl:${pattern}`)).sort();

  it('when one IPv6 client spells its address every way, then the guess limit counts them as one address with one key', async () => {
    const spellings = [
      '2001:db8::1',
      '2001:DB8::1',
      '2001:db8:0:0:0:0:0:1',
      '[2001:db8::1]',
      '2001:db8::1%eth0',
      '2001:0db8::0001',
      '[2001:db8::1]:4711',
    ];
    const answers = [];
    for (const from of spellings) answers.push(await login(from, wrong));
    expect(answers.slice(0, FAILED_PER_ADDRESS).map((a) => a.code)).toEqual(
      Array(FAILED_PER_ADDRESS).fill('invalid_credentials'),
    );
    expect(answers.slice(FAILED_PER_ADDRESS).map((a) => a.code)).toEqual(
      Array(spellings.length - FAILED_PER_ADDRESS).fill('rate_limited'),
    );
    expect(await limiterKeys('guess:addr:*')).toEqual([`${prefix}rl:guess:addr:2001:db8::/64`]);
  });

  it('when an IPv4 client also spells itself as IPv4-mapped IPv6, then that is the same address', async () => {
    const spellings = ['192.0.2.1', '::ffff:192.0.2.1', '::FFFF:c000:201', '192.0.2.1:8080', '[::ffff:192.0.2.1]'];
    const answers = [];
    for (const from of spellings) answers.push(await login(from, wrong));
    expect(answers.map((a) => a.code)).toEqual([
      'invalid_credentials',
      'invalid_credentials',
      'invalid_credentials',
      'rate_limited',
      'rate_limited',
    ]);
    expect(await limiterKeys('guess:addr:192*')).toEqual([`${prefix}rl:guess:addr:192.0.2.1`]);
  });

  it('when a client rotates through addresses of one /64, then it reaches 429 as one client, and the next /64 is another client', async () => {
    const answers = [];
    for (let i = 1; i <= 10; i++)
      answers.push(await login(`2001:db8:0:7:${i.toString(16)}:${(i * 31).toString(16)}::${i}`, wrong));
    expect(answers.filter((a) => a.code === 'invalid_credentials')).toHaveLength(FAILED_PER_ADDRESS);
    expect(answers.slice(FAILED_PER_ADDRESS).every((a) => a.code === 'rate_limited')).toBe(true);
    expect(await login('2001:db8:0:8::1', wrong)).toMatchObject({ status: 401, code: 'invalid_credentials' });
  });

  it('when successful logins come from spellings and rotations of one /64, then they spend one login budget', async () => {
    const from = [
      '2001:db8:1:2::a',
      '2001:DB8:1:2:0:0:0:b',
      '[2001:db8:1:2::c]',
      '2001:db8:1:2::d%lo',
      '2001:db8:1:2:ffff::e',
    ];
    const answers = [];
    for (const address of from) answers.push(await login(address, { secret }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 429]);
    expect(answers[4]!.code).toBe('rate_limited');
    expect(await limiterKeys('login:addr:2001:db8:1:*')).toEqual([`${prefix}rl:login:addr:2001:db8:1:2::/64`]);
    assertNoEscape(bff);
  });
});
