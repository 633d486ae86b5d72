import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** The event loop's recent lateness, as @fastify/under-pressure measures it. */
export interface EventLoopDelay {
  /** The mean delay (ms) over the last completed sample window; 0 before the first. */
  readonly meanMs: number;
  /** Ends the window now: the mean over it becomes `meanMs`, and a new window starts. Returns it. */
  sample(): number;
  stop(): void;
}

/**
 * Node's event-loop delay histogram (a libuv timer every `resolutionMs`; how late each firing was), read and
 * reset every `sampleMs`. The mean over a window, less the resolution, is how long a callback that became
 * ready waited for the loop on average: near 0 on an idle or busy-but-keeping-up process, the length of a loop
 * turn once more work arrives than the process can do (every turn then runs a long batch of requests). The
 * mean and not the maximum: one garbage collection pause is not overload. `onSample` sees each window's mean.
 */
export function eventLoopDelay(opts: {
  sampleMs: number;
  resolutionMs?: number;
  onSample?: (meanMs: number) => void;
}): EventLoopDelay {
  const resolutionMs = opts.resolutionMs ?? 10;
  const histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  let meanMs = 0;
  const sample = (): number => {
    // NaN when the loop was so blocked that the timer never fired in the window: treat as the window itself.
    const mean = histogram.count > 0 ? histogram.mean / 1e6 : opts.sampleMs;
    histogram.reset();
    meanMs = Math.max(0, mean - resolutionMs);
    opts.onSample?.(meanMs);
    return meanMs;
  };
  const timer = setInterval(sample, opts.sampleMs);
  timer.unref();
  return {
    get meanMs() {
      return meanMs;
    },
    sample,
    stop() {
      clearInterval(timer);
      histogram.disable();
    },
  };
}
