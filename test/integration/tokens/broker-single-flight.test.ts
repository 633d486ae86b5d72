/**
 * Upstream latency against the lease TTL decides how many token calls are made
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { LeaseStore, TokenState } from '../../../src/store/types.js';
import type { TokenBroker } from '../../../src/tokens/token-broker.js';
import { INTO_REFRESH_WINDOW_MS, SESSION_TTL_MS, counterValue, newSid, startRig, type Rig } from './rig.js';
import { STORE_KINDS, type TestStores } from './stores.js';

/** `total` concurrent token() calls for one sid, spread round-robin over the brokers. */
function stampede(brokers: TokenBroker[], sid: string, secret: string, total: number): Promise<TokenState[]> {
  return Promise.all(
    Array.from({ length: total }, (_, i) => brokers[i % brokers.length]!.token(sid, secret, SESSION_TTL_MS)),
  );
}

const distinctTokens = (states: TokenState[]): Set<string> => new Set(states.map((s) => s.token));

/**
 * A lease TTL an upstream call outlasts (twice over: STALL_MS), so only renewal (every third of it) keeps the
 * lease. Renewals may then come a second late on a loaded machine before the lease lapses (a 300 ms TTL left
 * 200 ms) and the renewal is judged, not the machine.
 */
const SHORT_LEASE_MS = 1_500;
const STALL_MS = 2 * SHORT_LEASE_MS;

describe.each(STORE_KINDS)('single flight in one process, %s store', (store) => {
  let rig: Rig;
  beforeEach(async () => {
    rig = await startRig({ store, label: 'broker-flight' });
  });
  afterEach(async () => rig.close());

  it('when 100 calls arrive at once for a fresh session, then exactly one POST is made and all get its token', async () => {
    const states = await stampede([rig.broker()], newSid(), rig.secret, 100);
    expect(rig.count('POST /requesttoken')).toBe(1);
    expect(rig.tokenCalls()).toBe(1);
    expect(distinctTokens(states).size).toBe(1);
  });

  it('when 100 calls arrive at once in one process, then the shared lease is asked for only once', async () => {
    const leases = rig.stores.leases;
    let acquires = 0;
    // The real store, observed: counting acquire() calls is the only addition.
    const counted: LeaseStore = {
      acquire: (...args) => {
        acquires++;
        return leases.acquire(...args);
      },
      renew: (...args) => leases.renew(...args),
      release: (...args) => leases.release(...args),
      waitForRelease: (...args) => leases.waitForRelease(...args),
    };

    await stampede([rig.broker({ leases: counted })], newSid(), rig.secret, 100);

    expect(acquires).toBe(1);
    expect(rig.tokenCalls()).toBe(1);
  });

  it('when 100 calls arrive at once for a token due for refresh, then exactly one PUT is made', async () => {
    const broker = rig.broker();
    const sid = newSid();
    await broker.token(sid, rig.secret, SESSION_TTL_MS);
    rig.clock.advance(INTO_REFRESH_WINDOW_MS);
    rig.sim.resetCounts();

    const states = await stampede([broker], sid, rig.secret, 100);

    expect(rig.count('PUT /requesttoken')).toBe(1);
    expect(rig.tokenCalls()).toBe(1);
    expect(new Set(states.map((s) => s.expiresAt)).size).toBe(1);
  });

  it('when the lease holder dies without releasing, then another caller takes over once the lease lapses', async () => {
    const sid = newSid();
    const ghostLeaseMs = 400;
    // Timed from before the acquire, so the lapse is never earlier than `started` + ghostLeaseMs, however
    // long a loaded machine takes between the two.
    const started = Date.now();
    // A holder that crashed: it never renews or releases, so only the PX ends its lease.
    expect(await rig.stores.leases.acquire(sid, 'ghost-instance', ghostLeaseMs)).toBe(true);

    const state = await rig.broker({ waitMs: 10_000 }).token(sid, rig.secret, SESSION_TTL_MS);

    expect(Date.now() - started).toBeGreaterThanOrEqual(ghostLeaseMs);
    expect(rig.count('POST /requesttoken')).toBe(1);
    expect((await rig.stores.tokens.get(sid))?.token).toBe(state.token);
    expect(await counterValue(rig.metrics.leaseWaits, { outcome: 'took_over' })).toBe(1);
  });

  it('when the upstream call outlasts the lease TTL, then renewal keeps it to one call', async () => {
    const leaseTtlMs = SHORT_LEASE_MS;
    const brokers = [rig.broker({ leaseTtlMs }), rig.broker({ leaseTtlMs })];
    rig.sim.setFaults({ tokenLatencyMs: STALL_MS });

    const states = await stampede(brokers, newSid(), rig.secret, 20);

    expect(rig.tokenCalls()).toBe(1);
    expect(distinctTokens(states).size).toBe(1);
  });
});

describe('single flight across instances sharing one Redis', () => {
  let rig: Rig;
  let extra: TestStores[];
  beforeEach(async () => {
    rig = await startRig({ store: 'redis', label: 'broker-instances' });
    // Each instance has its own Redis connection, as separate processes would.
    extra = await Promise.all([1, 2, 3].map(() => rig.openInstance()));
  });
  afterEach(async () => {
    await Promise.all(extra.map((s) => s.close()));
    await rig.close();
  });

  const instances = (overrides: { leaseTtlMs?: number } = {}): TokenBroker[] => [
    rig.broker(overrides),
    ...extra.map((s, i) =>
      rig.broker({ tokens: s.tokens, leases: s.leases, instanceId: `instance-${i}`, ...overrides }),
    ),
  ];

  it('when 100 calls for a fresh session are spread over 4 instances, then exactly one POST is made', async () => {
    const states = await stampede(instances(), newSid(), rig.secret, 100);
    expect(rig.count('POST /requesttoken')).toBe(1);
    expect(rig.tokenCalls()).toBe(1);
    expect(distinctTokens(states).size).toBe(1);
  });

  it('when 100 calls for a token due for refresh are spread over 4 instances, then exactly one PUT is made', async () => {
    const brokers = instances();
    const sid = newSid();
    await brokers[0]!.token(sid, rig.secret, SESSION_TTL_MS);
    rig.clock.advance(INTO_REFRESH_WINDOW_MS);
    rig.sim.resetCounts();

    const states = await stampede(brokers, sid, rig.secret, 100);

    expect(rig.count('PUT /requesttoken')).toBe(1);
    expect(rig.tokenCalls()).toBe(1);
    expect(new Set(states.map((s) => s.expiresAt)).size).toBe(1);
  });

  it('when the holder instance stalls past the lease TTL, then renewal keeps the others from calling upstream', async () => {
    rig.sim.setFaults({ tokenLatencyMs: STALL_MS });
    const states = await stampede(instances({ leaseTtlMs: SHORT_LEASE_MS }), newSid(), rig.secret, 100);
    expect(rig.tokenCalls()).toBe(1);
    expect(distinctTokens(states).size).toBe(1);
  });
});
