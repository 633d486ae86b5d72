import type { Logger } from './logger.js';
import { countRepeats, type RepeatOptions } from './repeats.js';

/** FAULT_LOG_INTERVAL_MS's default: one line per cause a minute at most, however many times it happens. */
export const DEFAULT_FAULT_LOG_INTERVAL_MS = 60_000;

/**
 * One expected fault, as one log line: `fault` is its stable code (docs/troubleshooting.md lists each), `key`
 * what counts as "the same cause" for the rate limit (default: the code), `fields` what was tried (an address,
 * the setting that names it, a hint; never a credential), `message` the line's sentence.
 */
export interface Fault {
  fault: string;
  key?: string;
  message: string;
  fields: Record<string, string | number | boolean | undefined>;
  /** warn unless told: an operator has something to fix. */
  level?: 'warn' | 'info' | 'error';
  /** The error itself: logged (stack and all) only at LOG_LEVEL=debug. */
  err?: unknown;
}

export interface FaultLog {
  /** Logs the fault now, or counts it when its cause was logged less than an interval ago. */
  report(fault: Fault): void;
  /** Writes the counts still pending and stops the timers (service close). */
  close(): void;
}

/** Distinct causes counted in one interval; they come from the configuration, so this is never reached in practice. */
const MAX_CAUSES = 1000;

/**
 * Expected faults (a dependency refusing, timing out, failing TLS or DNS; a request refused by a check) as
 * one line each, rate limited per cause (repeats.ts): the first occurrence is logged at once, later ones within
 * the interval are counted, and when it ends the count is logged in one line (`repeats`) with the latest
 * occurrence's details. A storm of refused connections or foreign origins is a line or two an interval, not a
 * line a request. Causes are keyed by what the service chose (codes, configured addresses), never by what a
 * client sent, so the keys are bounded by the configuration. No stack trace unless the logger is at debug.
 */
export function createFaultLog(deps: {
  logger: Logger;
  intervalMs?: number;
  setInterval?: RepeatOptions['setInterval'];
  clearInterval?: RepeatOptions['clearInterval'];
}): FaultLog {
  const { logger } = deps;
  const intervalMs = deps.intervalMs ?? DEFAULT_FAULT_LOG_INTERVAL_MS;
  const write = (fault: Fault, repeats: number | undefined): void => {
    const line = {
      fault: fault.fault,
      ...fault.fields,
      ...(repeats !== undefined && { repeats, intervalMs }),
      ...(fault.err !== undefined && logger.isLevelEnabled('debug') && { err: fault.err }),
    };
    const message =
      repeats === undefined ? fault.message : `${fault.message} (${repeats} more in the last ${intervalMs / 1000} s)`;
    logger[fault.level ?? 'warn'](line, message);
  };
  const repeats = countRepeats<Fault>({
    windowMs: intervalMs,
    maxKeys: MAX_CAUSES,
    ...(deps.setInterval && { setInterval: deps.setInterval }),
    ...(deps.clearInterval && { clearInterval: deps.clearInterval }),
    write,
    keyOf: (fault) => fault.key ?? fault.fault,
    keepLatest: true,
    overflow: (n) => logger.warn({ fault: 'fault_log_overflow', repeats: n }, `${n} more faults of other causes`),
  });
  return { report: (fault) => repeats.emit(fault), close: () => repeats.flush() };
}
