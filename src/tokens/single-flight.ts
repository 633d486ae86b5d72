/**
 * In-process coalescing: while a call for a key is running, later callers for that key share its
 * promise instead of starting their own. This keeps N concurrent requests of one process down to one
 * lease round-trip and at most one upstream call.
 */
export interface SingleFlight<T> {
  run(key: string, work: () => Promise<T>): Promise<T>;
  /** True while a call for `key` is running, so a caller can tell joining from starting. */
  has(key: string): boolean;
  /** Resolves once no call for `key` is running (its outcome is ignored). */
  settled(key: string): Promise<void>;
  /** Calls running now, for tests and diagnostics. */
  size(): number;
}

export function createSingleFlight<T>(): SingleFlight<T> {
  const running = new Map<string, Promise<T>>();

  return {
    run(key, work) {
      const existing = running.get(key);
      if (existing) return existing;
      // Starting on a later tick means even a synchronous throw lands after the entry is set.
      const call: Promise<T> = Promise.resolve()
        .then(work)
        .finally(() => {
          if (running.get(key) === call) running.delete(key);
        });
      running.set(key, call);
      return call;
    },
    has: (key) => running.has(key),
    async settled(key) {
      const call = running.get(key);
      if (call)
        await call.then(
          () => undefined,
          () => undefined,
        );
    },
    size: () => running.size,
  };
}
