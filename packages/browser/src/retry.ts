/** How many times and how long the client waits before sending an idempotent request again. */
export interface RetryPolicy {
  /** Further attempts after the first (default 2; 0 turns retries off). */
  retries: number;
  /** First back-off without `Retry-After`, doubled each time, with jitter (default 250 ms). */
  baseDelayMs: number;
  /** Longest wait; an answer asking for more (`Retry-After: 3600`) is returned, not waited on (default 10 s). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 2, baseDelayMs: 250, maxDelayMs: 10_000 };

/** RFC 9110's idempotent methods: sending one twice has the effect of sending it once. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export const isIdempotent = (method: string): boolean => IDEMPOTENT.has(method.toUpperCase());

/** Only "not now" answers are worth a second try: 429 (a rate or quota) and 503 (a dependency is away). */
export const isRetryableStatus = (status: number): boolean => status === 429 || status === 503;

/** `Retry-After` as delay-seconds or an HTTP-date, in milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP-date names its day and month; anything else Date.parse would take ("-1" as year -1) is junk.
  const at = /^[A-Za-z]{3}, /.test(text) ? Date.parse(text) : NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The wait before attempt `attempt + 1`, or undefined when the answer asks for longer than the policy allows. */
export function delayBefore(
  attempt: number,
  retryAfter: number | undefined,
  policy: RetryPolicy,
  random = Math.random,
): number | undefined {
  if (retryAfter !== undefined) return retryAfter <= policy.maxDelayMs ? retryAfter : undefined;
  const backoff = policy.baseDelayMs * 2 ** attempt;
  return Math.min(policy.maxDelayMs, backoff / 2 + random() * (backoff / 2));
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
