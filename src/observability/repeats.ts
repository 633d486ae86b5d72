export interface RepeatOptions {
  /** How long the same item is counted instead of written, after the line that started it. */
  windowMs: number;
  /** Distinct items counted at once; beyond it a new one is counted under `overflow`. */
  maxKeys: number;
  setInterval?: (fn: () => void, ms: number) => unknown;
  clearInterval?: (handle: unknown) => void;
}

export interface Repeats<T> {
  emit(item: T): void;
  /** Writes what is counted and stops the window's timer (at close). */
  flush(): void;
}

/**
 * The first item of a key is written at once; the same key again within the window is only counted, and the
 * count is written as one line (`write(item, n)`) when the window closes: a flood is a line per window, not a
 * line per event. `keyOf` undefined: written at once, never counted. With `keepLatest` the counted line carries
 * the latest item's details, else the first's. More than `maxKeys` keys in one window are counted together
 * (`overflow`). The audit trail's refusals (audit-repeats.ts) and the fault lines (fault-log.ts) use it.
 */
export function countRepeats<T>(
  options: RepeatOptions & {
    write: (item: T, repeated: number | undefined) => void;
    keyOf: (item: T) => string | undefined;
    overflow: (repeated: number) => void;
    keepLatest?: boolean;
  },
): Repeats<T> {
  const { write } = options;
  let counted = new Map<string, { item: T; repeated: number }>();
  let overflow = 0;
  const flush = (): void => {
    const closing = counted;
    counted = new Map();
    for (const { item, repeated } of closing.values()) if (repeated > 0) write(item, repeated);
    if (overflow > 0) options.overflow(overflow);
    overflow = 0;
  };
  const timer = options.setInterval
    ? options.setInterval(flush, options.windowMs)
    : setInterval(flush, options.windowMs).unref();
  return {
    emit(item) {
      const key = options.keyOf(item);
      if (key === undefined) return write(item, undefined);
      const seen = counted.get(key);
      if (seen) {
        seen.repeated += 1;
        if (options.keepLatest) seen.item = item;
        return;
      }
      if (counted.size >= options.maxKeys) {
        overflow += 1;
        return;
      }
      counted.set(key, { item, repeated: 0 });
      write(item, undefined);
    },
    flush() {
      if (options.clearInterval) options.clearInterval(timer);
      else clearInterval(timer as NodeJS.Timeout);
      flush();
    },
  };
}
