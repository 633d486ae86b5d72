import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Paths pino censors wherever they appear in a log object. Secrets, tokens and passwords must never
 * reach a log line, whatever object a caller happens to log.
 */
export const REDACT_PATHS = [
  'secret',
  'token',
  'password',
  'authorization',
  'cookie',
  '*.secret',
  '*.token',
  '*.password',
  '*.authorization',
  '*.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
];

export function createLogger(options: { level?: string; destination?: DestinationStream } = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { service: 'tigergraph-bff' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}

/** A logger that drops everything, for tests and library callers that pass none. */
export const silentLogger = (): Logger => pino({ level: 'silent' });
