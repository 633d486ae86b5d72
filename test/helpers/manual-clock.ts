/** A clock tests move by hand, shared by the simulator, the client and the broker. */
export interface ManualClock {
  now: () => number;
  advance(ms: number): void;
}

export function manualClock(start = Date.now()): ManualClock {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
  };
}
