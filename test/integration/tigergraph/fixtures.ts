import { TigerGraphError, type TigerGraphErrorKind } from '../../../packages/client/src/errors.js';

/** A clock the simulator and the client share, so expiries can be asserted exactly. */
export interface TestClock {
  now: () => number;
  advanceSeconds(seconds: number): void;
  nowSeconds(): number;
}

export function createClock(startMs = Date.UTC(2025, 0, 1, 12, 0, 0)): TestClock {
  let ms = startMs;
  return {
    now: () => ms,
    advanceSeconds: (seconds) => {
      ms += seconds * 1000;
    },
    nowSeconds: () => Math.floor(ms / 1000),
  };
}

/** The rejection of `promise` as a TigerGraphError; fails the test if it resolves or throws something else. */
export async function rejection(promise: Promise<unknown>): Promise<TigerGraphError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof TigerGraphError) return err;
    throw new Error(`expected a TigerGraphError, got ${String(err)}`, { cause: err });
  }
  throw new Error('expected the call to fail, but it resolved');
}

export async function expectKind(promise: Promise<unknown>, kind: TigerGraphErrorKind): Promise<TigerGraphError> {
  const err = await rejection(promise);
  expect(err.kind).toBe(kind);
  return err;
}

/** The versions the client is run against: one per wire era, plus both sides of the 3.6 return-shape gate. */
export const VERSIONS = ['3.4.0', '3.5.0', '3.9.3', '4.1.0'] as const;
export const DEFAULT_LIFETIME_3X = 2_592_000;
export const DEFAULT_LIFETIME_JWT = 604_800;
