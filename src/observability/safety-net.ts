import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';

/**
 * The last line of defence for a long-running service: an error no request path handled (a stream
 * without an 'error' listener, a promise nobody awaited) is logged at error level and counted in
 * tgbff_uncaught_errors_total instead of taking every user's requests down with the process. Each one
 * is a bug to fix, so only main.ts installs this: in-process tests keep jest's own failure on them, and
 * the child-process tests assert the counter stays at zero under attack.
 */
export function installSafetyNet(proc: NodeJS.Process, logger: Logger, metrics: Metrics): void {
  proc.on('uncaughtException', (err, origin) => {
    metrics.uncaughtErrors.inc({ kind: 'exception' });
    logger.error({ err, origin }, 'uncaught exception (bug): the process carries on');
  });
  proc.on('unhandledRejection', (reason) => {
    metrics.uncaughtErrors.inc({ kind: 'rejection' });
    logger.error({ err: reason }, 'unhandled promise rejection (bug): the process carries on');
  });
}
