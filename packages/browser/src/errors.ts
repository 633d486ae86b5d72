import type { ErrorCode } from './error-codes.js';
import { SESSION_ENDING_CODES } from './error-codes.js';

/** The service refused (its own `{"error":{"code","message"}}`), or no usable answer came. */
export class BffError extends Error {
  override readonly name = 'BffError';
  constructor(
    readonly code: ErrorCode,
    /** The HTTP status; 0 when no answer came (`network_error`). */
    readonly status: number,
    message: string,
    /** What `Retry-After` asked for, in milliseconds, when the answer carried one. */
    readonly retryAfterMs?: number,
    /** The answer's body as parsed JSON (or text), for a console that shows it. */
    readonly body?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** A 401 after which only a new login helps (`not_authenticated`, `session_expired`, `token_rejected`). */
  get sessionEnded(): boolean {
    return this.status === 401 && SESSION_ENDING_CODES.includes(this.code as never);
  }
}

/**
 * TigerGraph itself refused (a relayed answer in RESTPP's `{"error":true,"code","message"}` envelope): for
 * instance `REST-10016` when the session's token has no access to that graph, or a query's own error.
 */
export class TigerGraphError extends Error {
  override readonly name = 'TigerGraphError';
  constructor(
    readonly status: number,
    /** RESTPP's code (`REST-10016`, `GSQL-…`), when it sent one. */
    readonly code: string | undefined,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}
