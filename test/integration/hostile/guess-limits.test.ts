/**
 * Back-off windows of 1 s, 2 s, 4 s must not elapse between the guesses
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'undici';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle } from '../../../src/simulator/types.js';
import { uniquePrefix } from '../../helpers/redis-prefix.js';
import { dropPrefix, processEnv } from './process-env.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { ALICE, BOB, basic, SIM_USERS } from '../admin/admin-harness.js';
import { elapse } from '../../helpers/wait.js';
import { recordFigure } from '../../helpers/figures.js';

/**
 * docs/architecture.md, "The hostile-user model": every guess is limited per address and per user, and an attacker cannot lock a real user
 * out. A real service process behind TRUST_PROXY, so X-Forwarded-For gives each request its address;
 * the simulator's admin server counts the credential checks that reached it.
 */
const BACKOFF_MAX_S = 4;
/** LOGIN_BACKOFF_AFTER's default: the guesses one address may make for one user before each waits. */
const FREE_GUESSES = 5;
/** The first wait (src/http/limits/guess-limiter.ts); each further one doubles it. */
const FIRST_WAIT_MS = 1000;

interface Answer {
  status: number;
  code?: string;
  retryAfter?: number;
}

/** An answer and when it came, on this process's clock (which the service's shares). */
type Timed = Answer & { at: number };

/**
 * Judges a burst of wrong guesses sent at once at `sentAt`, right after the free ones: the first of them
 * takes the last free guess and starts the first wait; every other guess is refused while a wait runs. On
 * a quiet machine the whole burst falls inside the first wait, so exactly one is let through; on a busy one
 * it may outlast that wait, and then one more may pass per wait that ran out, the k-th extra no sooner than
 * 1 s + 2 s + ... (the doubling waits) after the burst was sent. Returns how many were let through.
 */
function judgeBurst(burst: Timed[], sentAt: number, checkedCode: string): number {
  const through = burst.filter((a) => a.status !== 429).sort((x, y) => x.at - y.at);
  expect(through.map((a) => a.code)).toEqual(Array(through.length).fill(checkedCode));
  expect(through.length).toBeGreaterThanOrEqual(1);
  through.slice(1).forEach((a, k) => {
    const waitsRunOut = FIRST_WAIT_MS * (2 ** (k + 1) - 1);
    expect({ extra: k + 1, afterMs: a.at - sentAt >= waitsRunOut }).toEqual({ extra: k + 1, afterMs: true });
  });
  const refused = burst.filter((a) => a.status === 429);
  expect(refused.every((a) => a.code === 'rate_limited' && (a.retryAfter ?? 0) >= 1)).toBe(true);
  return through.length;
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
  });
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

  /** `n` guesses sent at once, each answer stamped with when it came. */
  const burst = (n: number, guess: () => Promise<Answer>): Promise<Timed[]> =>
    Promise.all(Array.from({ length: n }, async () => ({ ...(await guess()), at: Date.now() })));

  it('when one address sends 50 wrong passwords for a user, then the right password from another address still logs in', async () => {
    const wrong = 'not-alices-password-1';
    // Four free guesses one after another, then 46 at once: the first of those takes the fifth free guess and
    // starts the 1 s wait, which the other 45 meet (the wait is counted from that guess, not from its answer).
    const free: Answer[] = [];
    for (let i = 0; i < FREE_GUESSES - 1; i++) free.push(await login('10.9.0.1', ALICE.name, wrong));
    const sentAt = Date.now();
    const answers = await burst(50 - free.length, () => login('10.9.0.1', ALICE.name, wrong));

    const real = await login('10.9.0.2', ALICE.name, ALICE.password);
    expect(real).toEqual({ status: 200 });
    expect(free.map((a) => a.status)).toEqual([401, 401, 401, 401]);
    const through = judgeBurst(answers, sentAt, 'invalid_credentials');
    recordFigure(`guess burst (login): ${through} of ${answers.length} let through`);
    // Only the attempts let through reached the admin server: the attacker's guesses are slowed, not counted up.
    expect(checksWith(ALICE.name, wrong)).toBe(free.length + through);
  });

  it('when one address keeps guessing one user, then it waits 1 s, 2 s, 4 s between guesses, never more than LOGIN_BACKOFF_MAX', async () => {
    const from = '10.9.0.3';
    const wrong = 'not-bobs-password-1';
    for (let i = 0; i < FREE_GUESSES - 1; i++) expect((await login(from, BOB.name, wrong)).status).toBe(401);
    // Each round sends two guesses at once: one is let through and starts the next wait, the other meets
    // that wait at its start, so its Retry-After is the whole wait however slowly the machine answers.
    const waits: number[] = [];
    for (let round = 0; round < 4; round++) {
      const pair = await Promise.all([login(from, BOB.name, wrong), login(from, BOB.name, wrong)]);
      expect(pair.map((a) => a.status).sort()).toEqual([401, 429]);
      const refused = pair.find((a) => a.status === 429)!;
      expect(refused.code).toBe('rate_limited');
      waits.push(refused.retryAfter ?? 0);
      await elapse((refused.retryAfter ?? 0) * 1000 + 100, 'the back-off wait must run out before the next guess');
    }
    expect(waits).toEqual([1, 2, 4, BACKOFF_MAX_S]);
  });

  it('when wrong admin Basic credentials come fast, then they get 429 with Retry-After, the admin server sees only the first few, and the right ones from elsewhere work', async () => {
    const wrong = 'not-alices-password-2';
    const before = checksWith(ALICE.name, wrong);
    // Four free guesses one after another, then 26 at once: the first of those takes the fifth free guess and
    // starts the 1 s wait, which the other 25 meet.
    const free: Answer[] = [];
    for (let i = 0; i < FREE_GUESSES - 1; i++) free.push(await listSecrets('10.9.1.1', ALICE.name, wrong));
    const sentAt = Date.now();
    const answers = await burst(30 - free.length, () => listSecrets('10.9.1.1', ALICE.name, wrong));

    expect(free.map((a) => a.code)).toEqual(Array(4).fill('invalid_credentials'));
    const through = judgeBurst(answers, sentAt, 'invalid_credentials');
    recordFigure(`guess burst (admin Basic): ${through} of ${answers.length} let through`);
    expect(checksWith(ALICE.name, wrong) - before).toBe(free.length + through);
    const logged = bff
      .output()
      .split('\n')
      .filter((line) => line.includes('credential guesses limited'));
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.join('\n')).toContain('"route":"admin"');
    expect(logged.join('\n')).not.toContain(ALICE.name);
    expect(bff.output()).not.toContain(wrong);

    expect((await listSecrets('10.9.1.2', ALICE.name, ALICE.password)).status).toBe(200);
  });
});
