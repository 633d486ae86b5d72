import { AppError } from '../../errors.js';

/**
 * The one answer of every counted limit here (guesses, login budget, the session routes' budget): 429
 * `rate_limited` with `message`, and Retry-After in whole seconds until the window frees a slot (at least 1).
 */
export function rateLimited(message: string, retryAfterMs: number): AppError {
  const retry = String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
  return new AppError('rate_limited', message, { headers: { 'Retry-After': retry } });
}
