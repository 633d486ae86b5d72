import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { INTO_REFRESH_WINDOW_MS, SESSION_TTL_MS, counterValue, newSid, startRig, type Rig } from './rig.js';
import { STORE_KINDS } from './stores.js';
import { until } from '../../helpers/wait.js';

describe.each(STORE_KINDS)('rejected tokens and logout, %s store', (store) => {
  let rig: Rig;
  beforeEach(async () => {
    rig = await startRig({ store, label: 'broker-rejected' });
  });
  afterEach(async () => rig.close());

  it('when upstream rejects the stored token, then replaceRejected mints exactly once and deletes the refused one upstream', async () => {
    const broker = rig.broker();
    const sid = newSid();
    const first = await broker.token(sid, rig.secret, SESSION_TTL_MS);
    rig.sim.revokeToken(first.token);
    rig.sim.resetCounts();

    const results = await Promise.all(
      Array.from({ length: 20 }, () => broker.replaceRejected(sid, rig.secret, first.token, SESSION_TTL_MS)),
    );

    expect(rig.count('POST /requesttoken')).toBe(1);
    expect(rig.count('DELETE /requesttoken')).toBe(1);
    expect(rig.tokenCalls()).toBe(2);
    const fresh = results[0]!;
    expect(fresh.token).not.toBe(first.token);
    expect(results.every((r) => r?.token === fresh.token)).toBe(true);
    expect(await counterValue(rig.metrics.tokenDeletes, { reason: 'replaced', result: 'ok' })).toBe(1);
    expect((await rig.stores.tokens.get(sid))?.token).toBe(fresh.token);
  });

  it('when the replacement is refused again within the re-mint window, then null and no second mint; after the window one more', async () => {
    const broker = rig.broker({ remintWindowMs: 10_000 });
    const sid = newSid();
    const first = await broker.token(sid, rig.secret, SESSION_TTL_MS);
    const second = await broker.replaceRejected(sid, rig.secret, first.token, SESSION_TTL_MS);
    rig.sim.resetCounts();

    const refused = await broker.replaceRejected(sid, rig.secret, second!.token, SESSION_TTL_MS);

    expect(refused).toBeNull();
    expect(rig.tokenCalls()).toBe(0);
    expect((await rig.stores.tokens.get(sid))?.token).toBe(second!.token);

    rig.clock.advance(10_001);
    const third = await broker.replaceRejected(sid, rig.secret, second!.token, SESSION_TTL_MS);

    expect(third?.token).not.toBe(second!.token);
    expect(rig.count('POST /requesttoken')).toBe(1);
    expect(rig.count('DELETE /requesttoken')).toBe(1);
    expect(rig.sim.tokens().map((t) => t.token)).toEqual([third!.token]);
  });

  it('when the rejected token was already replaced, then replaceRejected keeps the current one and does not mint', async () => {
    const broker = rig.broker();
    const sid = newSid();
    const first = await broker.token(sid, rig.secret, SESSION_TTL_MS);
    const second = await broker.replaceRejected(sid, rig.secret, first.token, SESSION_TTL_MS);
    rig.sim.resetCounts();

    // A slow request that still carried the first token reports its rejection late.
    const late = await broker.replaceRejected(sid, rig.secret, first.token, SESSION_TTL_MS);

    expect(late).toEqual(second);
    expect(rig.tokenCalls()).toBe(0);
    expect(await rig.stores.tokens.get(sid)).toEqual(second);
  });

  it('when the lease holder reads no state while the refused token is stored, then it mints once and never hands the refused token back', async () => {
    const sid = newSid();
    const first = await rig.broker().token(sid, rig.secret, SESSION_TTL_MS);
    // The holder's read comes back empty once, as a read issued again in a failover once did (a reply left
    // unshaped): the stored state, with the refused token at the same version, must not pass for a newer one.
    let misreads = 1;
    const tokens = {
      ...rig.stores.tokens,
      get: async (id: string) => {
        const state = await rig.stores.tokens.get(id);
        return misreads-- > 0 ? null : state;
      },
    };
    const broker = rig.broker({ tokens });
    rig.sim.revokeToken(first.token);
    rig.sim.resetCounts();

    const fresh = await broker.replaceRejected(sid, rig.secret, first.token, SESSION_TTL_MS);

    expect(fresh?.token).not.toBe(first.token);
    expect(rig.count('POST /requesttoken')).toBe(1);
    expect(rig.sim.tokens().map((t) => t.token)).toEqual([fresh!.token]);
    expect((await rig.stores.tokens.get(sid))?.token).toBe(fresh!.token);
  });

  it('when a rejection arrives while a refresh of that token runs, then the rejected token is not handed back', async () => {
    const broker = rig.broker();
    const sid = newSid();
    const first = await broker.token(sid, rig.secret, SESSION_TTL_MS);
    rig.clock.advance(INTO_REFRESH_WINDOW_MS);
    // The PUT is held long enough for the rejection to be reported while it is on the wire, on a loaded machine too.
    rig.sim.setFaults({ tokenLatencyMs: 1_000 });
    rig.sim.resetCounts();

    let refreshed = false;
    const refreshing = broker.token(sid, rig.secret, SESSION_TTL_MS).finally(() => (refreshed = true));
    // Join while the PUT is on the wire, so the flight joined will hand back the rejected token.
    await until('the refresh PUT on the wire', () => rig.count('PUT /requesttoken') === 1);
    expect(refreshed).toBe(false); // the flight is still in the air: the report below joins it at once
    const viaReject = await broker.replaceRejected(sid, rig.secret, first.token, SESSION_TTL_MS);

    expect((await refreshing).token).toBe(first.token);
    expect(viaReject?.token).not.toBe(first.token);
    expect(rig.count('POST /requesttoken')).toBe(1);
    expect((await rig.stores.tokens.get(sid))?.token).toBe(viaReject?.token);
  });

  it('when a session logs out, then its token is deleted upstream and in the store', async () => {
    const broker = rig.broker();
    const sid = newSid();
    const state = await broker.token(sid, rig.secret, SESSION_TTL_MS);
    rig.sim.resetCounts();

    await broker.revoke(sid, rig.secret);

    expect(rig.count('DELETE /requesttoken')).toBe(1);
    expect(rig.sim.tokens().map((t) => t.token)).not.toContain(state.token);
    expect(await rig.stores.tokens.get(sid)).toBeNull();
    expect(await counterValue(rig.metrics.tokenCalls, { op: 'delete', result: 'ok' })).toBe(1);
  });

  it('when the token is already gone upstream at logout, then revoke succeeds and clears the state', async () => {
    const broker = rig.broker();
    const sid = newSid();
    const state = await broker.token(sid, rig.secret, SESSION_TTL_MS);
    rig.sim.revokeToken(state.token);
    rig.sim.resetCounts();

    await broker.revoke(sid, rig.secret);

    expect(rig.count('DELETE /requesttoken')).toBe(1);
    expect(await rig.stores.tokens.get(sid)).toBeNull();
  });

  it('when a session never had a token, then revoke makes no upstream call', async () => {
    await rig.broker().revoke(newSid(), rig.secret);
    expect(rig.tokenCalls()).toBe(0);
  });
});
