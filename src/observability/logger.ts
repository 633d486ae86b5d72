import { destination as pinoDestination, pino, type DestinationStream, type Logger } from 'pino';

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

/**
 * The identity provider's names for its credentials, censored in what the single sign-on parts log (their
 * logger is `ssoLogger`). Not in REDACT_PATHS: each wildcard path costs every log line, the access line of
 * every relayed request included (4 more took a line from ~8 to ~12.5 us of CPU), and only the OIDC code
 * handles objects carrying these names.
 */
export const SSO_REDACT_PATHS = [
  'clientSecret',
  '*.clientSecret',
  'refresh_token',
  'access_token',
  'id_token',
  '*.refresh_token',
  '*.access_token',
  '*.id_token',
];

/** The logger of the single sign-on parts: the service's, also censoring the IdP's credential names. */
export function ssoLogger(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: [...REDACT_PATHS, ...SSO_REDACT_PATHS], censor: '[redacted]' } });
}

export interface LoggerOptions {
  level?: string;
  /** Where lines go; default stdout, buffered (see `buffered`). */
  destination?: DestinationStream;
  /**
   * For the default stdout destination: gather lines and write them in batches of about 4 KiB, at the
   * latest every `flushMs` (and at exit), instead of one write per line. The access line of every
   * request made its own write the largest single cost of a relayed request after the sockets.
   */
  buffered?: { flushMs: number };
}

/** A batch of lines this big is written at once; `flushMs` bounds how long a quiet line waits. */
const BUFFER_BYTES = 4096;

export function createLogger(options: LoggerOptions = {}): Logger {
  let destination = options.destination;
  if (destination === undefined && options.buffered) {
    // Synchronous writes of whole batches, as pino's default stdout writes each line: an asynchronous
    // batch still in flight when the process exits lands after the final synchronous flush, out of
    // order. sonic-boom's own timer (unref'd) bounds how long a quiet line waits; pino registers its
    // exit flush only for asynchronous destinations, so the last batch is flushed here.
    const stdout = pinoDestination({
      dest: 1,
      minLength: BUFFER_BYTES,
      sync: true,
      periodicFlush: options.buffered.flushMs,
    });
    process.once('exit', () => stdout.flushSync());
    destination = stdout;
  }
  return pino(
    {
      level: options.level ?? 'info',
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { service: 'tigergraph-bff' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/** A logger that drops everything, for tests and library callers that pass none. */
export const silentLogger = (): Logger => pino({ level: 'silent' });
