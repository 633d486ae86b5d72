import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { expectAppError } from './expect-app-error.js';
import {
  INTO_REFRESH_WINDOW_MS,
  LIFETIME_SEC,
  REFRESH_BEFORE_SEC,
  SESSION_TTL_MS,
  counterValue,
  newSid,
  startRig,
  type Rig,
} from './rig.js';
import { STORE_KINDS } from './stores.js';

const PAST_EXPIRY_MS = (LIFETIME_SEC + 1) * 1000;

describe.each(STORE_KINDS)('token expiry and failed refreshes, %s store', (store) => {
  let rig: Rig;
  beforeEach(async () => {
    rig = await startRig({ store, label: 'broker-expiry' });
  });
  afterEach(async () => rig.close());

  it('when the clock runs through several lifetimes, then every token returned is unexpired, fresh and live upstream', async () => {
    const broker = rig.broker();
    const sid = newSid();
    // 7-minute steps land both inside and beyond the refresh window, and past expiry after idle gaps.
    for (let step = 0; step < 30; step++) {
      rig.clock.advance(step % 10 === 9 ? PAST_EXPIRY_MS : 7 * 60_000);
      const state = await broker.token(sid, rig.secret, SESSION_TTL_MS);
      const remainingSec = state.expiresAt - rig.clock.now() / 1000;
      expect(remainingSec).toBeGreaterThanOrEqual(REFRESH_BEFORE_SEC);
      const upstream = rig.sim.tokens().find((t) => t.token === state.token);
      expect(upstream).toBeDefined();
      expect(upstream!.expiresAt * 1000).toBeGreaterThan(rig.clock.now());
    }
  });

  it('when a due token cannot be refreshed (upstream 500), then the still-valid token is used', async () => {
    const broker = rig.broker();
    const sid = newSid();
    const first = await broker.token(sid, rig.secret, SESSION_TTL_MS);
    rig.clock.advance(INTO_REFRESH_WINDOW_MS);
    rig.sim.setFaults({ tokenForcedStatus: 500 });

    const state = await broker.token(sid, rig.secret, SESSION_TTL_MS);

    expect(state).toEqual(first);
    expect(await counterValue(rig.metrics.tokenCalls, { op: 'refresh', result: 'error' })).toBe(1);
  });

  it('when an expired token cannot be replaced (upstream 500), then the call fails instead of returning it', async () => {
    const broker = rig.broker();
    const sid = newSid();
    await broker.token(sid, rig.secret, SESSION_TTL_MS);
    rig.clock.advance(PAST_EXPIRY_MS);
    rig.sim.setFaults({ tokenForcedStatus: 500 });

    await expectAppError(broker.token(sid, rig.secret, SESSION_TTL_MS), 502, 'upstream_error');
    // The expired token was not even offered for refresh: a new one was asked for.
    expect(rig.count('POST /requesttoken')).toBe(2);
  });

  it('when another holder keeps the lease past waitMs and the due token is valid, then that token is used', async () => {
    const broker = rig.broker({ waitMs: 300 });
    const sid = newSid();
    const first = await broker.token(sid, rig.secret, SESSION_TTL_MS);
    rig.clock.advance(INTO_REFRESH_WINDOW_MS);
    await rig.stores.leases.acquire(sid, 'stuck-holder', 10_000);
    rig.sim.resetCounts();

    const state = await broker.token(sid, rig.secret, SESSION_TTL_MS);

    expect(state).toEqual(first);
    expect(rig.tokenCalls()).toBe(0);
    expect(await counterValue(rig.metrics.leaseWaits, { outcome: 'stale' })).toBe(1);
  });

  it('when another holder keeps the lease past waitMs and the token has expired, then 503 token_unavailable', async () => {
    const broker = rig.broker({ waitMs: 300 });
    const sid = newSid();
    await broker.token(sid, rig.secret, SESSION_TTL_MS);
    rig.clock.advance(PAST_EXPIRY_MS);
    await rig.stores.leases.acquire(sid, 'stuck-holder', 10_000);
    rig.sim.resetCounts();
    const started = Date.now();

    const err = await expectAppError(broker.token(sid, rig.secret, SESSION_TTL_MS), 503, 'token_unavailable');

    expect(err.headers['Retry-After']).toBe('1');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(rig.tokenCalls()).toBe(0);
  });
});
