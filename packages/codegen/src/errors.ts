/**
 * The generator's exit codes: the same numbers as the service's `tgbff` CLI, so a script branches on them
 * whichever of the two ran it.
 */
export const Exit = {
  ok: 0,
  other: 1,
  /** Fix the command line (flags, the config file, the secret's input). */
  usage: 2,
  /** The service or the data server refused the secret or token. */
  badCredentials: 3,
  /** Nothing answered: refused, unresolvable, or too slow. */
  unreachable: 6,
  /** The graph does not exist, the credential may not use it, or it lists no installed query. */
  graphNotFound: 7,
} as const;

export type ExitValue = (typeof Exit)[keyof typeof Exit];

/** A failure the generator reports as one line and an exit code; `code` is a stable snake_case name. */
export class CodegenError extends Error {
  readonly exitCode: ExitValue;
  readonly code: string;

  constructor(exitCode: ExitValue, code: string, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CodegenError';
    this.exitCode = exitCode;
    this.code = code;
  }
}

export const usage = (message: string): CodegenError => new CodegenError(Exit.usage, 'usage', message);
