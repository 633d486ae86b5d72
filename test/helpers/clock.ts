/** Clocks tests move by hand, handed as `now` to the simulator, the service, the broker and the stores. */
export interface ManualClock {
  now: () => number;
  /** Whole seconds of `now()` (JWT `iat`/`exp`). */
  nowSeconds: () => number;
  advance(ms: number): void;
}

/** Stands still until advanced: every reading between two `advance` calls is the same. */
export function manualClock(start = Date.now()): ManualClock {
  let t = start;
  return {
    now: () => t,
    nowSeconds: () => Math.floor(t / 1000),
    advance: (ms) => {
      t += ms;
    },
  };
}

/**
 * Runs with the wall clock, plus whatever was advanced: for tests whose timeouts and socket deadlines
 * must still pass in real time while expiries are jumped over.
 */
export function testClock(start = Date.now()): ManualClock {
  let offset = 0;
  const now = (): number => start + offset + (Date.now() - start);
  return {
    now,
    nowSeconds: () => Math.floor(now() / 1000),
    advance: (ms) => {
      offset += ms;
    },
  };
}
