// Waiting in a test, in one place (CONTRIBUTING.md, "Waiting in a test"). A test waits for the event it
// needs (an answer, a log line, a Redis key, a process message), or polls a condition with a deadline here.
// A deadline here is how long to keep trying, never the property under test: it is generous, so a starved
// machine only makes a passing test slower, never a failing one. Where time itself is the property (a
// window that must pass, a "nothing happens for a while"), `elapse(ms, why)` says so; a bare sleep anywhere
// else in test/ fails test/unit/ci/fixed-sleeps.test.ts.
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a wait keeps trying unless told otherwise: long enough for a machine whose CPUs are taken. */
export const WAIT_MS = 20_000;

export interface WaitOptions {
  /** How long to keep trying (default WAIT_MS). */
  timeoutMs?: number;
  /** Pause between tries (default 25 ms). */
  intervalMs?: number;
}

type Found<T> = Exclude<T, false | undefined | null>;

/**
 * Calls `probe` until it gives something other than `false`, `undefined` or `null`, and returns that; a throw
 * counts as "not yet". Past the deadline it throws, naming `what` and the last value or error seen.
 */
export async function until<T>(
  what: string,
  probe: () => T | Promise<T>,
  { timeoutMs = WAIT_MS, intervalMs = 25 }: WaitOptions = {},
): Promise<Found<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== false && value !== undefined && value !== null) return value as Found<T>;
      last = value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const seen = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last seen: ${seen})`);
    }
    await sleep(intervalMs);
  }
}

/** `until` for a yes/no check, in the older argument order (check, timeout, what). */
export async function poll(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  await until(what, check, { timeoutMs, intervalMs: 50 });
}

/** Waits until `read()` (a growing text: a process's output, a captured log) matches `pattern`; the match. */
export async function untilMatch(
  what: string,
  read: () => string,
  pattern: RegExp,
  options: WaitOptions = {},
): Promise<RegExpExecArray> {
  return until(what, () => pattern.exec(read()), options);
}

/**
 * A fixed wait where time itself is the property: a window that must pass (a TTL, an idle end, a back-off),
 * or a stretch in which nothing may happen. `why` says which, and is there to be read, not used.
 */
export async function elapse(ms: number, why: string): Promise<void> {
  void why;
  await sleep(ms);
}
