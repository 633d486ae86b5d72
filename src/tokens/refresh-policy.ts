import type { TokenState } from '../store/types.js';
import type { TokenGrant } from '@tigergraph-bff/client';

/** A grant that may bring a newer renewal credential (an IdP's rotated refresh token). */
export type RenewableGrant = TokenGrant & { renewWith?: string };

/**
 * When a stored token may be used and when it is due for refresh. Times: `nowMs` in epoch ms,
 * `expiresAt` in epoch seconds (as TigerGraph reports it).
 */

/** A token may go upstream only strictly before its expiry. */
export function isUsable(state: TokenState, nowMs: number): boolean {
  return nowMs < state.expiresAt * 1000;
}

/** Usable and with at least `refreshBeforeSec` left, so no refresh is needed yet. */
export function isFresh(state: TokenState, nowMs: number, refreshBeforeSec: number): boolean {
  return isUsable(state, nowMs) && state.expiresAt * 1000 - nowMs >= refreshBeforeSec * 1000;
}

export function sameState(a: TokenState | null, b: TokenState | null): boolean {
  if (a === null || b === null) return a === b;
  return a.token === b.token && a.expiresAt === b.expiresAt && a.version === b.version;
}

/**
 * How long the token state lives in the store: no longer than the token works, and no longer than
 * the session. Never below 1 ms, since stores reject a non-positive TTL.
 */
export function stateTtlMs(expiresAtSec: number, nowMs: number, sessionTtlMs: number): number {
  return Math.max(1, Math.min(expiresAtSec * 1000 - nowMs, sessionTtlMs));
}

/** A state that carries its own renewal credential must outlive its token: the next refresh needs it. */
export function stateTtlFor(state: TokenState, nowMs: number, sessionTtlMs: number): number {
  return state.renewWith === undefined ? stateTtlMs(state.expiresAt, nowMs, sessionTtlMs) : Math.max(1, sessionTtlMs);
}
