import { destination as pinoDestination, pino, type DestinationStream, type Logger } from 'pino';
import { escapeInvisible } from './line-escape.js';

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
 * logger is `ssoLogger`). Not in REDACT_PATHS: each wildcard path costs every log line (4 more took a line
 * from ~8 to ~12.5 us of CPU; the access line, of primitives only, skips them: `flatLineLogger`), and only
 * the OIDC code handles objects carrying these names.
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

/**
 * The censored names that can match a line whose every value is a string, number or boolean: the paths
 * without a leading wildcard (`*.token` only ever matches inside an object value), of both lists.
 */
const FLAT_REDACT_PATHS = [...REDACT_PATHS, ...SSO_REDACT_PATHS].filter((path) => !path.startsWith('*'));

/** A log line of primitive fields only: no object a wildcard path could reach into. */
export type FlatLine = Record<string, string | number | boolean | undefined>;

/**
 * A logger for lines of primitive fields only (the access line of every request), censoring the same names
 * at the top level as the service's logger, without its wildcard paths. pino runs each top-level value of a
 * line through the wildcard censor (@pinojs/redact parses every path again per value), which costs about a
 * microsecond per field and can censor nothing in a string or a number; the top-level names still are.
 */
export function flatLineLogger(logger: Logger): { info(line: FlatLine, msg: string): void } {
  return logger.child({}, { redact: { paths: FLAT_REDACT_PATHS, censor: '[redacted]' } });
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
      timestamp: isoTimeByMillisecond(),
      hooks: { streamWrite: escapeInvisible },
    },
    destination,
  );
}

/**
 * pino's `isoTime`, text for text, with the text of the last millisecond kept: under load many lines share
 * one millisecond, and a `Date` plus `toISOString()` per line showed in the relay's CPU profile.
 */
export function isoTimeByMillisecond(now: () => number = Date.now): () => string {
  let last = NaN;
  let text = '';
  return () => {
    const ms = now();
    if (ms !== last) {
      last = ms;
      text = `,"time":"${new Date(ms).toISOString()}"`;
    }
    return text;
  };
}

/** A logger that drops everything, for tests and library callers that pass none. */
export const silentLogger = (): Logger => pino({ level: 'silent' });
