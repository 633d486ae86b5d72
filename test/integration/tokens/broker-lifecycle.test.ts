import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createSecretApi } from '../../../packages/client/src/secret-api.js';
import { expectAppError } from './expect-app-error.js';
import {
  INTO_REFRESH_WINDOW_MS,
  LIFETIME_SEC,
  SESSION_TTL_MS,
  counterValue,
  newSid,
  startRig,
  type Rig,
} from './rig.js';
import { STORE_KINDS } from './stores.js';

const nowSec = (rig: Rig): number => rig.clock.now() / 1000;

describe.each(STORE_KINDS)('token broker lifecycle, %s store', (store) => {
  let rig: Rig;
  beforeEach(async () => {
    rig = await startRig({ store, label: 'broker-lifecycle' });
  });
  afterEach(async () => rig.close());

  it('when a session has no token, then the first call mints one with a single POST and stores it', async () => {
    const sid = newSid();
    const state = await rig.broker().token(sid, rig.secret, SESSION_TTL_MS);

    expect(rig.count('POST /requesttoken')).toBe(1);
    expect(rig.tokenCalls()).toBe(1);
    const upstream = rig.sim.tokens().find((t) => t.token === state.token);
    expect(upstream?.secretAlias).toBe(rig.alias);
    expect(state.expiresAt).toBeCloseTo(nowSec(rig) + LIFETIME_SEC, -1);
    expect(await rig.stores.tokens.get(sid)).toEqual(state);
    expect(await counterValue(rig.metrics.tokenCalls, { op: 'mint', result: 'ok' })).toBe(1);
  });

  it('when the stored token is valid and not due for refresh, then it is reused with no upstream call', async () => {
    const broker = rig.broker();
    const sid = newSid();
    const first = await broker.token(sid, rig.secret, SESSION_TTL_MS);
    rig.sim.resetCounts();
    rig.clock.advance(INTO_REFRESH_WINDOW_MS - 20_000);

    const again = await broker.token(sid, rig.secret, SESSION_TTL_MS);

    expect(again).toEqual(first);
    expect(rig.tokenCalls()).toBe(0);
  });

  it('when less than refreshBefore remains, then it is extended by one PUT to now + lifetime', async () => {
    const broker = rig.broker();
    const sid = newSid();
    const first = await broker.token(sid, rig.secret, SESSION_TTL_MS);
    rig.clock.advance(INTO_REFRESH_WINDOW_MS);
    rig.sim.resetCounts();

    const refreshed = await broker.token(sid, rig.secret, SESSION_TTL_MS);

    expect(rig.count('PUT /requesttoken')).toBe(1);
    expect(rig.tokenCalls()).toBe(1);
    expect(refreshed.token).toBe(first.token);
    // New expiry counts from now, not from the old expiry.
    expect(refreshed.expiresAt).toBeCloseTo(nowSec(rig) + LIFETIME_SEC, -1);
    expect(refreshed.expiresAt).toBeLessThan(first.expiresAt + LIFETIME_SEC - 60);
    const upstream = rig.sim.tokens().find((t) => t.token === first.token);
    expect(upstream?.expiresAt).toBeCloseTo(refreshed.expiresAt, -1);
    expect(await rig.stores.tokens.get(sid)).toEqual({ ...refreshed, version: first.version + 1 });
  });

  it('when the token is gone upstream at refresh time, then the PUT falls back to one POST', async () => {
    const broker = rig.broker();
    const sid = newSid();
    const first = await broker.token(sid, rig.secret, SESSION_TTL_MS);
    rig.sim.revokeToken(first.token);
    rig.clock.advance(INTO_REFRESH_WINDOW_MS);
    rig.sim.resetCounts();

    const replaced = await broker.token(sid, rig.secret, SESSION_TTL_MS);

    expect(rig.count('PUT /requesttoken')).toBe(1);
    expect(rig.count('POST /requesttoken')).toBe(1);
    expect(replaced.token).not.toBe(first.token);
    expect(rig.sim.tokens().map((t) => t.token)).toContain(replaced.token);
    expect((await rig.stores.tokens.get(sid))?.token).toBe(replaced.token);
  });

  it('when the secret was dropped, then the next refresh ends the session with 401 session_expired', async () => {
    const broker = rig.broker();
    const sid = newSid();
    await broker.token(sid, rig.secret, SESSION_TTL_MS);
    const admin = createSecretApi({ gsqlUrl: rig.sim.gsqlUrl, restppUrl: rig.sim.restppUrl, version: rig.sim.version });
    await admin.dropSecret({ username: 'tigergraph', password: 'tigergraph' }, 'social', rig.alias);
    await admin.close();
    rig.clock.advance(INTO_REFRESH_WINDOW_MS);

    const err = await expectAppError(broker.token(sid, rig.secret, SESSION_TTL_MS), 401, 'session_expired');

    expect(err.message).not.toContain(rig.secret);
    expect(rig.tokenCalls()).toBeGreaterThan(1);
  });

  it('when the secret is wrong at login, then mint fails with 401 invalid_credentials', async () => {
    const wrong = `${rig.secret.slice(0, -3)}zzz`;
    const err = await expectAppError(rig.broker().mint(wrong), 401, 'invalid_credentials');
    expect(err.message).not.toContain(wrong);
    expect(await counterValue(rig.metrics.tokenCalls, { op: 'mint', result: 'error' })).toBe(1);
  });

  it('when a login grant is adopted, then token() serves it without an upstream call', async () => {
    const broker = rig.broker();
    const grant = await broker.mint(rig.secret);
    const sid = newSid();
    await broker.adopt(sid, grant, SESSION_TTL_MS);
    rig.sim.resetCounts();

    const state = await broker.token(sid, rig.secret, SESSION_TTL_MS);

    expect(state).toEqual({ ...grant, version: 1 });
    expect(rig.tokenCalls()).toBe(0);
  });
});
