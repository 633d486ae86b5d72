import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import { eventLoopDelay, type EventLoopDelay } from '../../observability/event-loop-delay.js';
import { ERROR_CODES } from '../../errors/codes.js';
import type { Step } from '../pipeline/step.js';

export interface OverloadSettings {
  /** OVERLOAD_MAX_IN_FLIGHT: requests in flight on this instance beyond which new ones are refused; 0 = no limit. */
  maxInFlight: number;
  /** OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: mean event-loop delay over a sample window beyond which; 0 = not watched. */
  maxEventLoopDelayMs: number;
  /** Length of an event-loop-delay sample window (ms). */
  sampleMs?: number;
}

export type OverloadReason = 'in_flight' | 'event_loop_delay';

/** The paths a balancer calls: always answered, so it can see the instance alive and steer away from it. */
const PROBES = new Set(['/healthz', '/readyz']);

/** Whole seconds a refused client should wait: one sample window is enough for the verdict to change. */
const RETRY_AFTER = '1';

const BODY = JSON.stringify({
  error: { code: 'overloaded', message: ERROR_CODES.overloaded.message },
});
const BODY_LENGTH = String(Buffer.byteLength(BODY));

/**
 * Overload protection in the manner of @fastify/under-pressure and Envoy's overload manager: past either
 * limit a request is refused at once with 503 `overloaded` and Retry-After, before it reads a session or
 * calls upstream, so a process that cannot keep up answers the excess cheaply instead of queueing work for
 * clients that will have left by the time it is done. Two signals: requests in flight (counted by the
 * pipeline's in-flight step) and the mean event-loop delay over the last sample window (CPU starvation, or
 * more arrivals than the process can serve). /healthz and /readyz are never refused; /readyz says overloaded.
 */
export interface OverloadGuard {
  /** Requests in flight on this instance, kept by the pipeline's in-flight step (in-flight.ts). */
  readonly inFlight: { n: number };
  /** The pipeline step: refuses (and answers) past a limit. */
  readonly step: Step;
  /** Why the instance is overloaded now, or null. */
  reason(): OverloadReason | null;
  close(): void;
}

export function createOverloadGuard(
  settings: OverloadSettings,
  deps: { metrics: Metrics; logger: Logger },
): OverloadGuard {
  const { maxInFlight, maxEventLoopDelayMs } = settings;
  const inFlight = { n: 0 };
  const refused = {
    in_flight: deps.metrics.overloadRefusals.labels('in_flight'),
    event_loop_delay: deps.metrics.overloadRefusals.labels('event_loop_delay'),
  };
  let delayed = false;
  const onSample = (meanMs: number): void => {
    delayed = meanMs > maxEventLoopDelayMs;
    deps.metrics.eventLoopDelayMean.set(meanMs / 1000);
  };
  // One warning per episode (its first refusal after a second without one), never one per refused request.
  let lastRefusal = -Infinity;
  const refusing = (why: OverloadReason): void => {
    const now = performance.now();
    if (now - lastRefusal > 1000)
      deps.logger.warn(
        { reason: why, inFlight: inFlight.n, maxInFlight, maxEventLoopDelayMs },
        'overloaded: refusing requests with 503 overloaded',
      );
    lastRefusal = now;
  };
  // Not watched (0): no histogram, no timer.
  const loop: EventLoopDelay | undefined =
    maxEventLoopDelayMs > 0 ? eventLoopDelay({ sampleMs: settings.sampleMs ?? 500, onSample }) : undefined;
  const over = (): OverloadReason | null => {
    if (delayed) return 'event_loop_delay';
    // The request being decided on is counted already: more than the limit, not as many.
    if (maxInFlight > 0 && inFlight.n > maxInFlight) return 'in_flight';
    return null;
  };
  return {
    inFlight,
    step(req, res, ctx) {
      const why = over();
      if (why === null || PROBES.has(ctx.path)) return;
      refused[why].inc();
      refusing(why);
      ctx.errorCode = 'overloaded';
      res.statusCode = ERROR_CODES.overloaded.status;
      res.setHeader('Retry-After', RETRY_AFTER);
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', BODY_LENGTH);
      res.end(req.method === 'HEAD' ? undefined : BODY);
      return true;
    },
    reason() {
      if (delayed) return 'event_loop_delay';
      return maxInFlight > 0 && inFlight.n >= maxInFlight ? 'in_flight' : null;
    },
    close() {
      loop?.stop();
    },
  };
}
