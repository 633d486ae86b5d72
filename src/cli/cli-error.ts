/**
 * Exit codes are part of the CLI's contract: scripts branch on them, so each one names a thing a
 * person can do something about.
 */
export const ExitCode = {
  ok: 0,
  other: 1,
  /** Fix the command line or the local setup (flags, secret input, credentials files). */
  usage: 2,
  /** The server rejected the secret, token or admin credentials. */
  badCredentials: 3,
  /** Unknown alias or token, reported only with --strict. */
  notFound: 4,
  /** The data server has authentication turned off, so there are no tokens to manage. */
  authDisabled: 5,
  /** The server did not answer: refused, unresolvable, or too slow. */
  unreachable: 6,
  /** The graph named (--graph / TG_GRAPH) does not exist, or the user may not use it. */
  graphNotFound: 7,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** An error the CLI reports as one line plus an exit code; `code` is the stable snake_case name for --json. */
export class CliError extends Error {
  readonly exitCode: ExitCodeValue;
  readonly code: string;

  constructor(exitCode: ExitCodeValue, code: string, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CliError';
    this.exitCode = exitCode;
    this.code = code;
  }
}

export const usageError = (message: string): CliError => new CliError(ExitCode.usage, 'usage', message);
