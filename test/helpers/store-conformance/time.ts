/**
 * Time in the conformance cases. A case lets time pass on the clock the stores expire keys by with `pass(ms)`
 * (StoresUnderTest): the memory stores read Date.now(), which their unit file fakes, so there it jumps; Redis
 * expires keys by its own clock, so there it really passes. Either way a case judges an order, never a
 * distance a stalled event loop could stretch: a key written with SHORT_TTL_MS is seen right after the write
 * (the set-up is run again if that check came too late: `withinWindow`), and is gone once PAST_SHORT_TTL_MS
 * passed (a wait that only ever lasts longer than asked, so a loaded machine cannot fail it).
 */

/**
 * The lifetime of a key a case lets run out. Long enough that the check right after the write comes first
 * on a machine whose CPUs are taken (a 100 ms one expired between two checks under load), short enough to
 * wait out on Redis.
 */
export const SHORT_TTL_MS = 1_000;
/** Past SHORT_TTL_MS, with room for rounding (a session's Redis TTL is whole seconds, rounded up). */
export const PAST_SHORT_TTL_MS = SHORT_TTL_MS + 250;
/** The lifetime of a key no case outlives, however loaded the machine. */
export const LONG_TTL_MS = 60_000;
/** "A while" in which something must not happen (a wait must not end): any length judges it. */
export const A_WHILE_MS = 300;

/** Lets `ms` pass on the stores' clock. */
export type Pass = (ms: number) => Promise<void>;

/**
 * Runs `setUp` until one run of it takes less than `windowMs` (by the clock the stores read: faked for the
 * memory stores, real for Redis), and returns what it returned. A run that took longer did not hold (a key it
 * wrote may have expired before it was checked): it is run again rather than judged. A run within the window
 * that fails is a real failure.
 */
export async function withinWindow<T>(windowMs: number, setUp: () => Promise<T>, tries = 5): Promise<T> {
  for (let run = 1; ; run++) {
    const started = performance.now();
    let outcome: { ok: true; value: T } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, value: await setUp() };
    } catch (error) {
      outcome = { ok: false, error };
    }
    if (performance.now() - started < windowMs) {
      if (outcome.ok) return outcome.value;
      throw outcome.error;
    }
    if (run === tries)
      throw new Error(`set-up never ran within ${windowMs} ms in ${tries} tries: the machine is too loaded to judge`);
  }
}

/** A promise's settling, readable at any time (for "it has not ended yet" and "wait until it ended"). */
export function tracked(promise: Promise<unknown>): { readonly settled: boolean } {
  const state = { settled: false };
  const settle = (): void => {
    state.settled = true;
  };
  promise.then(settle, settle);
  return state;
}
