/**
 * @paired back-off windows of 1 s, 2 s, 4 s must not elapse between the guesses
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'undici';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle } from '../../../src/simulator/types.js';
import { uniquePrefix } from '../../helpers/redis-prefix.js';
import { dropPrefix, processEnv } from './process-env.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { ALICE, BOB, basic, SIM_USERS } from '../admin/admin-harness.js';
import { sleep } from './hostile-rig.js';

/**
 * docs/architecture.md, "The hostile-user model": every guess is limited per address and per user, and an attacker cannot lock a real user
 * out. A real service process behind TRUST_PROXY, so X-Forwarded-For gives each request its address;
 * the simulator's admin server counts the credential checks that reached it.
 */
const BACKOFF_MAX_S = 4;

interface Answer {
  status: number;
  code?: string;
  retryAfter?: number;
}

describe('hostile client: guessing passwords', () => {
  let sim: SimulatorHandle;
  let bff: ServiceProcess;
  const prefix = uniquePrefix('guess-limits');

  beforeAll(async () => {
    sim = await startSimulator(SIM_USERS);
    bff = await startServiceProcess(
      {
        ...processEnv(prefix),
        TG_RESTPP_URL: sim.restppUrl,
        TG_GSQL_URL: sim.gsqlUrl,
        TG_VERSION: sim.version,
        PASSWORD_LOGIN: 'true',
        ADMIN_ROUTES: 'true',
        TRUST_PROXY: 'true',
        // Every other limit at its default (LOGIN_RATE_LIMIT 10, LOGIN_USER_LIMIT 100, LOGIN_BACKOFF_AFTER 5).
        LOGIN_BACKOFF_MAX: String(BACKOFF_MAX_S),
      },
      30_000,
    );
  }, 60_000);
  afterAll(async () => {
    await bff?.kill();
    await sim?.close();
    await dropPrefix(prefix);
  });

  async function answer(res: Awaited<ReturnType<typeof request>>): Promise<Answer> {
    const text = await res.body.text();
    const code = res.statusCode >= 400 ? (JSON.parse(text) as { error?: { code?: string } }).error?.code : undefined;
    const retryAfter = res.headers['retry-after'];
    return {
      status: res.statusCode,
      ...(code && { code }),
      ...(typeof retryAfter === 'string' && { retryAfter: Number(retryAfter) }),
    };
  }

  const login = async (from: string, username: string, password: string): Promise<Answer> =>
    answer(
      await request(`${bff.url}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest', 'x-forwarded-for': from },
        body: JSON.stringify({ username, password, graph: 'social' }),
      }),
    );

  const listSecrets = async (from: string, username: string, password: string): Promise<Answer> =>
    answer(
      await request(`${bff.url}/admin/secrets?graph=social`, {
        headers: { authorization: basic(username, password), 'x-forwarded-for': from },
      }),
    );

  /** Credential checks the admin server saw with exactly this user and password. */
  const checksWith = (username: string, password: string): number =>
    sim.seen().filter((r) => r.port === 'gsql' && r.headers['authorization'] === basic(username, password)).length;

  it('when one address sends 50 wrong passwords for a user, then the right password from another address still logs in', async () => {
    const wrong = 'not-alices-password-1';
    // The five free guesses one after another, then 45 at once, all inside the first 1 s back-off window
    // (sent one after another, they outlasted it in a CI run on a slow machine and one got through).
    const answers: Answer[] = [];
    for (let i = 0; i < 5; i++) answers.push(await login('10.9.0.1', ALICE.name, wrong));
    answers.push(...(await Promise.all(Array.from({ length: 45 }, () => login('10.9.0.1', ALICE.name, wrong)))));

    const real = await login('10.9.0.2', ALICE.name, ALICE.password);
    expect(real).toEqual({ status: 200 });
    expect(answers.slice(0, 5).map((a) => a.status)).toEqual([401, 401, 401, 401, 401]);
    expect(
      answers.slice(5).every((a) => a.status === 429 && a.code === 'rate_limited' && (a.retryAfter ?? 0) >= 1),
    ).toBe(true);
    // Only the attempts let through reached the admin server: the attacker's guesses are slowed, not counted up.
    expect(checksWith(ALICE.name, wrong)).toBe(5);
  }, 30_000);

  it('when one address keeps guessing one user, then it waits 1 s, 2 s, 4 s between guesses, never more than LOGIN_BACKOFF_MAX', async () => {
    const from = '10.9.0.3';
    const wrong = 'not-bobs-password-1';
    for (let i = 0; i < 5; i++) expect((await login(from, BOB.name, wrong)).status).toBe(401);
    const waits: number[] = [];
    for (let round = 0; round < 4; round++) {
      const refused = await login(from, BOB.name, wrong);
      expect(refused).toMatchObject({ status: 429, code: 'rate_limited' });
      waits.push(refused.retryAfter ?? 0);
      await sleep((refused.retryAfter ?? 0) * 1000 + 100);
      expect((await login(from, BOB.name, wrong)).status).toBe(401);
    }
    expect(waits).toEqual([1, 2, 4, BACKOFF_MAX_S]);
  }, 30_000);

  it('when wrong admin Basic credentials come fast, then they get 429 with Retry-After, the admin server sees only the first few, and the right ones from elsewhere work', async () => {
    const wrong = 'not-alices-password-2';
    const before = checksWith(ALICE.name, wrong);
    // The five free guesses one after another, then 25 at once: all inside the first 1 s back-off window.
    // Sent one after another, the 25 outlasted it on a slow machine, and a guess was let through (401).
    const answers: Answer[] = [];
    for (let i = 0; i < 5; i++) answers.push(await listSecrets('10.9.1.1', ALICE.name, wrong));
    answers.push(...(await Promise.all(Array.from({ length: 25 }, () => listSecrets('10.9.1.1', ALICE.name, wrong)))));

    expect(answers.slice(0, 5).map((a) => a.code)).toEqual(Array(5).fill('invalid_credentials'));
    const limited = answers.slice(5);
    expect(limited.every((a) => a.status === 429 && a.code === 'rate_limited' && (a.retryAfter ?? 0) >= 1)).toBe(true);
    expect(checksWith(ALICE.name, wrong) - before).toBe(5);
    const logged = bff
      .output()
      .split('\n')
      .filter((line) => line.includes('credential guesses limited'));
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.join('\n')).toContain('"route":"admin"');
    expect(logged.join('\n')).not.toContain(ALICE.name);
    expect(bff.output()).not.toContain(wrong);

    expect((await listSecrets('10.9.1.2', ALICE.name, ALICE.password)).status).toBe(200);
  }, 30_000);
});
