/**
 * The event-loop-delay signal of the overload guard (issue 46): a blocked loop reads as delay, a free one
 * does not, and the guard turns a delayed window into refusals and back
 */
import { createOverloadGuard } from '../../../src/http/limits/overload.js';
import { eventLoopDelay } from '../../../src/observability/event-loop-delay.js';
import { createMetrics } from '../../../src/observability/metrics.js';
import { captureLogger } from '../http/capture-logger.js';
import { until } from '../../helpers/wait.js';

/** Keeps the loop busy for `totalMs` in turns of `turnMs`, as a process serving more than it can does. */
async function busyTurns(totalMs: number, turnMs: number): Promise<void> {
  const end = performance.now() + totalMs;
  while (performance.now() < end) {
    const turnEnd = performance.now() + turnMs;
    while (performance.now() < turnEnd) {
      /* busy: the work of one long loop turn */
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

describe('event-loop delay', () => {
  test('when every loop turn runs 50 ms of work, then the window mean reads tens of ms; a free loop afterwards reads less', async () => {
    // A sample window of an hour: only sample() ends one, so the test decides what each window holds.
    const signal = eventLoopDelay({ sampleMs: 3_600_000 });
    try {
      signal.sample();
      await busyTurns(600, 50);
      const busy = signal.sample();
      // Each 10 ms timer firing waits out a 50 ms turn: late by up to 40 ms, about 20-40 ms on average.
      expect(busy).toBeGreaterThan(15);
      expect(signal.meanMs).toBe(busy);
      // A free loop: the timer fires on time (a starved machine can still be late, but not by whole turns).
      await until('a window of free-loop samples', () => {
        const free = signal.sample();
        return free < busy / 2 ? free : null;
      });
    } finally {
      signal.stop();
    }
  });

  test('when the loop is delayed past OVERLOAD_MAX_EVENT_LOOP_DELAY_MS, then the guard says event_loop_delay and recovers, logging nothing when nothing was refused', async () => {
    const { logger, lines } = captureLogger();
    const metrics = createMetrics({ defaultMetrics: false });
    const guard = createOverloadGuard({ maxInFlight: 0, maxEventLoopDelayMs: 5, sampleMs: 100 }, { metrics, logger });
    try {
      expect(guard.reason()).toBeNull();
      // Busy turns until a window's sample has seen them (the interval fires late, after a turn).
      await until('the guard to see the delay', async () => {
        await busyTurns(150, 40);
        return guard.reason() === 'event_loop_delay';
      });
      expect((await metrics.eventLoopDelayMean.get()).values[0]?.value).toBeGreaterThan(0.005);
      await until('the guard to see a free loop', () => guard.reason() === null);
      expect(lines().filter((l) => l.msg === 'overloaded: refusing requests with 503 overloaded')).toEqual([]);
    } finally {
      guard.close();
    }
  });
});
