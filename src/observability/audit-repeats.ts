import type { AuditEvent } from './audit-events.js';

/** Events a flood produces one per refused request: written once per window per key, then counted. */
type Collapsed = Extract<AuditEvent, { event: 'login.limited' | 'limiter.tripped' }>;
const COLLAPSED = new Set<AuditEvent['event']>(['login.limited', 'limiter.tripped']);
const collapsed = (event: AuditEvent): event is Collapsed => COLLAPSED.has(event.event);

export interface RepeatOptions {
  /** How long the same event (same fields) is counted instead of written, after the line that started it. */
  windowMs: number;
  /** Distinct events counted at once; beyond it a new one is counted under one overflow line. */
  maxKeys: number;
  setInterval?: (fn: () => void, ms: number) => unknown;
  clearInterval?: (handle: unknown) => void;
}

export const DEFAULT_REPEATS: RepeatOptions = { windowMs: 60_000, maxKeys: 10_000 };

/**
 * Collapses the events a flood produces (every refused login or relay 429 would otherwise be a synchronous
 * audit write, so one client could grow the trail by megabytes a second). The first event of a kind (the
 * same fields: event, limit, scope, route, address) is written at once; the same event again within
 * `windowMs` is only counted, and the count is written as one line of that event with `repeated: n` when
 * the window closes. More than `maxKeys` distinct events in a window (an address-rotating client) are
 * counted together under `limiter.tripped` with limit `audit`. `flush` writes what is counted (at close).
 */
export function collapseRepeats(
  write: (event: AuditEvent) => void,
  options: RepeatOptions = DEFAULT_REPEATS,
): { emit: (event: AuditEvent) => void; flush: () => void } {
  let counted = new Map<string, { event: Collapsed; repeated: number }>();
  let overflow = 0;
  const flush = (): void => {
    const closing = counted;
    counted = new Map();
    for (const { event, repeated } of closing.values()) if (repeated > 0) write({ ...event, repeated });
    if (overflow > 0) write({ event: 'limiter.tripped', limit: 'audit', scope: 'overflow', repeated: overflow });
    overflow = 0;
  };
  const timer = options.setInterval
    ? options.setInterval(flush, options.windowMs)
    : setInterval(flush, options.windowMs).unref();
  return {
    emit(event) {
      if (!collapsed(event)) return write(event);
      const key = JSON.stringify(event);
      const seen = counted.get(key);
      if (seen) {
        seen.repeated += 1;
        return;
      }
      if (counted.size >= options.maxKeys) {
        overflow += 1;
        return;
      }
      counted.set(key, { event, repeated: 0 });
      write(event);
    },
    flush() {
      if (options.clearInterval) options.clearInterval(timer);
      else clearInterval(timer as NodeJS.Timeout);
      flush();
    },
  };
}
