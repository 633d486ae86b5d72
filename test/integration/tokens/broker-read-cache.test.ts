import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { INTO_REFRESH_WINDOW_MS, SESSION_TTL_MS, newSid, startRig, type Rig } from './rig.js';
import { STORE_KINDS } from './stores.js';
import { elapse } from '../../helpers/wait.js';

// readCacheMs: the broker answers token() from its last read of a fresh state instead of the store.
// Deleting the stored state behind its back shows which of the two answered.
describe.each(STORE_KINDS)('token read memo, %s store', (store) => {
  let rig: Rig;
  beforeEach(async () => {
    rig = await startRig({ store, label: 'broker-memo' });
  });
  afterEach(async () => rig.close());

  it('when a fresh token was just read, then the next token() is answered without the store', async () => {
    const broker = rig.broker({ readCacheMs: 60_000 });
    const sid = newSid();
    const first = await broker.token(sid, rig.secret, SESSION_TTL_MS);
    await rig.stores.tokens.delete(sid);
    rig.sim.resetCounts();

    expect(await broker.token(sid, rig.secret, SESSION_TTL_MS)).toEqual(first);
    expect(rig.tokenCalls()).toBe(0);
  });

  it('when readCacheMs is absent, then every token() reads the store', async () => {
    const broker = rig.broker();
    const sid = newSid();
    const first = await broker.token(sid, rig.secret, SESSION_TTL_MS);
    await rig.stores.tokens.delete(sid);
    rig.sim.resetCounts();

    expect((await broker.token(sid, rig.secret, SESSION_TTL_MS)).token).not.toBe(first.token);
    expect(rig.count('POST /requesttoken')).toBe(1);
  });

  it('when the memo time has passed, then token() reads the store again', async () => {
    // The memo runs on performance.now(), not the rig's clock: its time really passes (a wait that can only
    // come out longer than asked, so a loaded machine does not change the outcome).
    const readCacheMs = 50;
    const broker = rig.broker({ readCacheMs });
    const sid = newSid();
    const first = await broker.token(sid, rig.secret, SESSION_TTL_MS);
    await rig.stores.tokens.delete(sid);
    await elapse(2 * readCacheMs + 20, "the broker's read memo must run out");
    rig.sim.resetCounts();

    expect((await broker.token(sid, rig.secret, SESSION_TTL_MS)).token).not.toBe(first.token);
    expect(rig.count('POST /requesttoken')).toBe(1);
  });

  it('when the remembered token falls due, then token() refreshes it exactly once through the store', async () => {
    const broker = rig.broker({ readCacheMs: 60_000 });
    const sid = newSid();
    const first = await broker.token(sid, rig.secret, SESSION_TTL_MS);
    rig.clock.advance(INTO_REFRESH_WINDOW_MS);
    rig.sim.resetCounts();

    const results = await Promise.all(Array.from({ length: 10 }, () => broker.token(sid, rig.secret, SESSION_TTL_MS)));

    expect(rig.count('PUT /requesttoken')).toBe(1);
    expect(rig.tokenCalls()).toBe(1);
    expect(results.every((r) => r.token === first.token && r.expiresAt > first.expiresAt)).toBe(true);
    expect(await rig.stores.tokens.get(sid)).toEqual(results[0]);
  });

  it('when upstream rejects the remembered token, then the replacement is what token() serves next', async () => {
    const broker = rig.broker({ readCacheMs: 60_000 });
    const sid = newSid();
    const first = await broker.token(sid, rig.secret, SESSION_TTL_MS);
    rig.sim.revokeToken(first.token);

    const replaced = await broker.replaceRejected(sid, rig.secret, first.token, SESSION_TTL_MS);

    expect(replaced?.token).not.toBe(first.token);
    expect(await broker.token(sid, rig.secret, SESSION_TTL_MS)).toEqual(replaced);
  });

  it('when the session logs out, then token() no longer serves the revoked token', async () => {
    const broker = rig.broker({ readCacheMs: 60_000 });
    const sid = newSid();
    const first = await broker.token(sid, rig.secret, SESSION_TTL_MS);

    await broker.revoke(sid, rig.secret);
    rig.sim.resetCounts();

    expect((await broker.token(sid, rig.secret, SESSION_TTL_MS)).token).not.toBe(first.token);
    expect(rig.count('POST /requesttoken')).toBe(1);
  });
});
