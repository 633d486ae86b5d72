/**
 * The one error vocabulary of the service: a status, a stable snake_case code and a public message.
 * Private detail travels in `cause` and reaches logs only; `expose` says whether the message may be
 * shown to a client.
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly expose: boolean;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.expose = status < 500;
    this.headers = options.headers ?? {};
  }
}

export const isAppError = (err: unknown): err is AppError => err instanceof AppError;
