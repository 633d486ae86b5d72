import { describe, expect, it } from '@jest/globals';
import { isFresh, isUsable, sameState, stateTtlMs } from '../../../src/tokens/refresh-policy.js';

const NOW = 1_700_000_000_000;
const state = (expiresAt: number, token = 'tok', version = 1) => ({ token, expiresAt, version });

describe('refresh policy', () => {
  it('when the expiry is still ahead, then the token is usable; at or after it, then not', () => {
    expect(isUsable(state(NOW / 1000 + 1), NOW)).toBe(true);
    expect(isUsable(state(NOW / 1000), NOW)).toBe(false);
    expect(isUsable(state(NOW / 1000 - 1), NOW)).toBe(false);
  });

  it('when at least refreshBefore remains, then fresh; when less, then due for refresh', () => {
    expect(isFresh(state(NOW / 1000 + 60), NOW, 60)).toBe(true);
    expect(isFresh(state(NOW / 1000 + 59), NOW, 60)).toBe(false);
  });

  it('when refreshBefore is 0 and the token has expired, then it is not fresh', () => {
    expect(isFresh(state(NOW / 1000), NOW, 0)).toBe(false);
  });

  it('when token, expiry and version match, then the states are the same; any difference, then not', () => {
    expect(sameState(state(5), state(5))).toBe(true);
    expect(sameState(null, null)).toBe(true);
    expect(sameState(state(5), null)).toBe(false);
    expect(sameState(state(5), state(6))).toBe(false);
    expect(sameState(state(5, 'a'), state(5, 'b'))).toBe(false);
    expect(sameState(state(5, 'a', 1), state(5, 'a', 2))).toBe(false);
  });

  it('when the session outlives the token, then the state TTL ends with the token, else with the session', () => {
    expect(stateTtlMs(NOW / 1000 + 100, NOW, 1_000_000)).toBe(100_000);
    expect(stateTtlMs(NOW / 1000 + 100, NOW, 5_000)).toBe(5_000);
  });

  it('when the token has already expired, then the TTL is still positive', () => {
    expect(stateTtlMs(NOW / 1000 - 10, NOW, 5_000)).toBe(1);
  });
});
