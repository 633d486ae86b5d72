import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { manualClock } from '../helpers/clock.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { FUZZ_TIMEOUT_MS, holds, runs, tallyLeaks } from './fuzz-budget.js';
import { dumpKeys, leaked } from './leak-scan.js';
import { sidOf } from '../helpers/cookies.js';
import { rawRoundTrip, type RawRoundTrip } from '../helpers/raw-request.js';
import { bearers, errorCode, loginCookie, startPropertyRig, type PropertyRig } from './property-rig.js';
import { sessionKey } from '../helpers/redis-prefix.js';
import { until } from '../helpers/wait.js';

const IDLE_S = 600;
const ABSOLUTE_S = 3600;
const REFRESH_BEFORE_S = 300;
const SLOTS = 3;

/** One browser: its cookie, the secret alias its current (or last) session logged in with, and when. */
interface Slot {
  cookie: string | undefined;
  alias: string | undefined;
  loggedInAt: number;
  live: boolean;
}

interface Model {
  slots: Slot[];
}

interface Real {
  rig: PropertyRig;
  clock: ReturnType<typeof manualClock>;
  /** Aliases of sessions that ended: none of their tokens may stay live upstream. */
  ended: Set<string>;
}

const clock = manualClock();
let rig: PropertyRig;
let redis: RedisServer;
const secrets: string[] = [];
let commandsRun = 0;

const relay = (cookie: string | undefined): Promise<RawRoundTrip> =>
  rawRoundTrip(
    rig.port,
    `GET /api/echo HTTP/1.1\r\nHost: x\r\n${cookie ? `Cookie: ${cookie}\r\n` : ''}X-Requested-With: XMLHttpRequest\r\nConnection: close\r\n\r\n`,
  );

/** Sessions past their absolute timeout are over in the model too. */
function expire(m: Model): void {
  for (const s of m.slots) if (s.live && clock.now() >= s.loggedInAt + ABSOLUTE_S * 1000) s.live = false;
}

function end(r: Real, slot: Slot): void {
  slot.live = false;
  if (slot.alias) r.ended.add(slot.alias);
}

/**
 * After every command: an ended session's cookie gets 401, and once the sweeper has run no token of an
 * ended session is live upstream.
 */
async function invariant(m: Model, r: Real): Promise<void> {
  commandsRun++;
  for (const slot of m.slots) {
    if (slot.live || slot.cookie === undefined) continue;
    if (slot.alias) r.ended.add(slot.alias);
    const answer = await relay(slot.cookie);
    expect([answer.status, errorCode(answer)]).toEqual([
      401,
      expect.stringMatching(/^(not_authenticated|session_expired)$/),
    ]);
  }
  await r.rig.service.tokenSweeper.sweep();
  const alive = r.rig.sim.tokens().filter((t) => r.ended.has(t.secretAlias));
  expect(alive).toEqual([]);
}

class Login implements fc.AsyncCommand<Model, Real> {
  constructor(readonly i: number) {}
  check = (m: Readonly<Model>) => !m.slots[this.i]!.live;
  async run(m: Model, r: Real) {
    const { alias, value } = r.rig.sim.createSecret({ alias: `model_${secrets.length}` });
    secrets.push(value);
    const slot = m.slots[this.i]!;
    slot.cookie = await loginCookie(r.rig, value);
    Object.assign(slot, { alias, loggedInAt: clock.now(), live: true });
    await invariant(m, r);
  }
  toString = () => `login(${this.i})`;
}

class Request implements fc.AsyncCommand<Model, Real> {
  constructor(readonly i: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    expire(m);
    const slot = m.slots[this.i]!;
    const answer = await relay(slot.cookie);
    expect(answer.status).toBe(slot.live ? 200 : 401);
    await invariant(m, r);
  }
  toString = () => `request(${this.i})`;
}

class Logout implements fc.AsyncCommand<Model, Real> {
  constructor(readonly i: number) {}
  check = (m: Readonly<Model>) => m.slots[this.i]!.live;
  async run(m: Model, r: Real) {
    expire(m);
    const slot = m.slots[this.i]!;
    const answer = await rawRoundTrip(
      r.rig.port,
      `POST /auth/logout HTTP/1.1\r\nHost: x\r\nCookie: ${slot.cookie}\r\nX-Requested-With: XMLHttpRequest\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
    );
    expect(answer.status).toBe(204);
    end(r, slot);
    await invariant(m, r);
  }
  toString = () => `logout(${this.i})`;
}

/** Time passes: a little, up to a token's refresh window, or past a session's absolute timeout. */
class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly kind: 'little' | 'refresh-due' | 'absolute',
    readonly i: number,
    readonly ms: number,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const slot = m.slots[this.i]!;
    const target =
      this.kind === 'little'
        ? clock.now() + this.ms
        : this.kind === 'refresh-due'
          ? slot.loggedInAt + (ABSOLUTE_S - REFRESH_BEFORE_S) * 1000 + this.ms
          : slot.loggedInAt + ABSOLUTE_S * 1000 + this.ms;
    clock.advance(Math.max(0, target - clock.now()));
    expire(m);
    await invariant(m, r);
  }
  toString = () => `advance(${this.kind}, ${this.i}, ${this.ms})`;
}

/** The idle timeout passes for one session: Redis lets its record expire, as its TTL would. */
class IdleExpiry implements fc.AsyncCommand<Model, Real> {
  constructor(readonly i: number) {}
  check = (m: Readonly<Model>) => m.slots[this.i]!.live;
  async run(m: Model, r: Real) {
    const slot = m.slots[this.i]!;
    const key = sessionKey(r.rig.prefix, sidOf(slot.cookie!));
    await r.rig.redis.pexpire(key, 1);
    await until('the session record to expire', async () => (await r.rig.redis.exists(key)) === 0);
    clock.advance(IDLE_S * 1000 + 1000);
    end(r, slot);
    expire(m);
    await invariant(m, r);
  }
  toString = () => `idle-expiry(${this.i})`;
}

/** Redis stops answering for a moment while a request is in flight: it waits, or gets 503, never a wrong answer. */
class RedisBlip implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly i: number,
    readonly ms: number,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    expire(m);
    const slot = m.slots[this.i]!;
    await r.rig.redis.call('CLIENT', 'PAUSE', String(this.ms), 'ALL');
    const answer = await relay(slot.cookie);
    if (answer.status === 503) expect(errorCode(answer)).toBe('store_unavailable');
    else expect(answer.status).toBe(slot.live ? 200 : 401);
    // A paused Redis holds every command until the pause ends: an answered PING is the end of it.
    await until('Redis to answer again after its pause', async () => (await r.rig.redis.ping()) === 'PONG');
    await invariant(m, r);
  }
  toString = () => `redis-blip(${this.i}, ${this.ms} ms)`;
}

const slot = fc.nat({ max: SLOTS - 1 });
const commands = fc.commands(
  [
    slot.map((i) => new Login(i)),
    slot.map((i) => new Login(i)),
    slot.map((i) => new Login(i)),
    slot.map((i) => new Request(i)),
    slot.map((i) => new Request(i)),
    slot.map((i) => new Logout(i)),
    fc
      .tuple(
        fc.constantFrom('little', 'refresh-due', 'absolute') as fc.Arbitrary<'little' | 'refresh-due' | 'absolute'>,
        slot,
        fc.integer({ min: 1, max: 120_000 }),
      )
      .map(([kind, i, ms]) => new Advance(kind, i, ms)),
    slot.map((i) => new IdleExpiry(i)),
    fc.tuple(slot, fc.integer({ min: 20, max: 300 })).map(([i, ms]) => new RedisBlip(i, ms)),
  ],
  { maxCommands: 15, size: 'medium' },
);

describe('the session life cycle as a model (real app, manual clock, own Redis)', () => {
  beforeAll(async () => {
    redis = await startRedisServer();
    rig = await startPropertyRig({
      now: clock.now,
      redisUrl: redis.url,
      env: {
        SESSION_IDLE_TIMEOUT: String(IDLE_S),
        SESSION_ABSOLUTE_TIMEOUT: String(ABSOLUTE_S),
        TOKEN_REFRESH_BEFORE: String(REFRESH_BEFORE_S),
        TOKEN_SWEEP_INTERVAL_MS: '3600000', // swept by the invariant, on the manual clock
      },
    });
  });
  afterAll(async () => {
    await rig?.close();
    await redis?.stop();
  });

  it(
    'when browsers log in, relay, log out, idle out, time out and meet Redis blips in any order, then an ended session gets 401 and none of its tokens stays live upstream',
    async () => {
      await holds(
        'session model',
        fc.asyncProperty(commands, async (cmds) => {
          const model: Model = {
            slots: Array.from({ length: SLOTS }, () => ({
              cookie: undefined,
              alias: undefined,
              loggedInAt: 0,
              live: false,
            })),
          };
          const real: Real = { rig, clock, ended: new Set() };
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          // Sessions left live end here, so the next run starts from none (and the leak scan sees logouts too).
          for (let i = 0; i < SLOTS; i++) if (model.slots[i]!.live) await new Logout(i).run(model, real);
        }),
        { numRuns: runs(20, 0.1) },
        () => commandsRun,
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it('when the runs are over, then no secret or token is in any Redis key or log line', async () => {
    const texts = [...(await dumpKeys(rig.redis, rig.prefix)), rig.logs()];
    const found = leaked(texts, [...secrets, ...bearers(rig)]);
    tallyLeaks('session model', texts.length, found);
    expect(found).toEqual([]);
  });
});
