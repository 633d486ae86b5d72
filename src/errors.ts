import { ERROR_CODES, type ErrorCode } from './errors/codes.js';
import type { Dependency } from './observability/dependency-faults.js';

export { ERROR_CODES, type ErrorCode } from './errors/codes.js';

export interface AppErrorOptions {
  cause?: unknown;
  headers?: Record<string, string>;
  /** The dependency whose failure this is (its cause is then logged as one fault line, not a stack). */
  dependency?: Dependency;
}

/**
 * The one error vocabulary of the service: a code from ERROR_CODES, which fixes the status, and a public
 * message (the code's default unless the site knows something useful, such as which field was wrong).
 * Private detail travels in `cause` and reaches logs only; `expose` says whether the message may be
 * shown to a client.
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly expose: boolean;
  readonly headers: Readonly<Record<string, string>>;
  readonly dependency: Dependency | undefined;

  constructor(code: ErrorCode, messageOrOptions?: string | AppErrorOptions, options: AppErrorOptions = {}) {
    const message = typeof messageOrOptions === 'string' ? messageOrOptions : ERROR_CODES[code].message;
    const opts = typeof messageOrOptions === 'object' ? messageOrOptions : options;
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.expose = this.status < 500;
    this.headers = opts.headers ?? {};
    this.dependency = opts.dependency;
  }
}

export const isAppError = (err: unknown): err is AppError => err instanceof AppError;
