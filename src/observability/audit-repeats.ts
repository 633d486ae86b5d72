import type { AuditEvent } from './audit-events.js';
import { countRepeats, type RepeatOptions } from './repeats.js';

/** Events a flood produces one per refused request: written once per window per key, then counted. */
type Collapsed = Extract<AuditEvent, { event: 'login.limited' | 'limiter.tripped' }>;
const COLLAPSED = new Set<AuditEvent['event']>(['login.limited', 'limiter.tripped']);
const collapsed = (event: AuditEvent): event is Collapsed => COLLAPSED.has(event.event);

export type { RepeatOptions } from './repeats.js';

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
  const repeats = countRepeats<Collapsed>({
    ...options,
    write: (event, repeated) => write(repeated === undefined ? event : { ...event, repeated }),
    keyOf: (event) => JSON.stringify(event),
    overflow: (repeated) => write({ event: 'limiter.tripped', limit: 'audit', scope: 'overflow', repeated }),
  });
  return {
    emit: (event) => (collapsed(event) ? repeats.emit(event) : write(event)),
    flush: () => repeats.flush(),
  };
}
