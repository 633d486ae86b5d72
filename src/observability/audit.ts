import { destination as pinoDestination, pino, type DestinationStream } from 'pino';
import type { AuditEvent } from './audit-events.js';
import { collapseRepeats, DEFAULT_REPEATS, type RepeatOptions } from './audit-repeats.js';
import { escapeInvisible } from './line-escape.js';
import { REDACT_PATHS } from './logger.js';

export type { AuditEvent };

/**
 * The audit trail: security events as JSON lines in a stream of their own (docs/audit.md), apart from the
 * request log so it can be kept longer and shipped elsewhere. Every line has `stream: "audit"`, `time`
 * and a fixed `event` name; what else it holds is the event's (audit-events.ts).
 */
export interface Audit {
  emit(event: AuditEvent): void;
  /** Writes the repeats still being counted (at shutdown). */
  flush?(): void;
}

export interface AuditOptions {
  /** A file to append to (AUDIT_LOG_FILE); else stdout. */
  file?: string;
  /** Where lines go instead (tests). */
  destination?: DestinationStream;
  /** How a flood's repeated events are collapsed (audit-repeats.ts). */
  repeats?: RepeatOptions;
}

/**
 * Written synchronously, line by line: audit events are few (logins, logouts, token calls, limits; a
 * flood's refusals are collapsed to a counted line per window), and a line must not be lost in a buffer
 * when the process dies. The service's censor paths apply here too,
 * as a second line of defence: no event type has a field of those names.
 */
export function createAudit(options: AuditOptions = {}): Audit {
  const destination =
    options.destination ??
    (options.file !== undefined
      ? pinoDestination({ dest: options.file, sync: true, mkdir: true, append: true })
      : pinoDestination({ dest: 1, sync: true }));
  const logger = pino(
    {
      level: 'info',
      base: { service: 'tigergraph-bff' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // In place of pino's level number, which means nothing here: the mark that tells audit lines apart.
      formatters: { level: () => ({ stream: 'audit' }) },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      hooks: { streamWrite: escapeInvisible },
    },
    destination,
  );
  return collapseRepeats((event) => logger.info(event), options.repeats ?? DEFAULT_REPEATS);
}

/** An audit trail that drops everything, for library callers and tests that pass none. */
export const silentAudit = (): Audit => ({ emit: () => undefined });
