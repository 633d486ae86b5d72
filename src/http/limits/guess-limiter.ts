import { createHash } from 'node:crypto';
import { AppError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { Audit } from '../../observability/audit.js';
import type { BackoffPolicy, RateLimiter, RateLimitResult } from '../../store/types.js';
import { rateLimited } from './rate-limited.js';

/** Limits on failed credential checks, shared by /auth/login and the /admin Basic auth. */
export interface GuessLimits {
  /** Failed checks per client address per window, whatever the user name. */
  perAddress: number;
  /** Failed checks per user name per window, from all addresses together. */
  perUser: number;
  windowSec: number;
  /** Failed checks for one user from one address before each further one makes it wait 1 s, 2 s, 4 s… */
  backoffAfter: number;
  backoffMaxSec: number;
}

export type GuessRoute = 'login' | 'admin';
export type GuessScope = 'address' | 'user' | 'user_address';

/**
 * - refused: the credentials were checked and wrong; the attempt stays counted.
 * - accepted: they were right; nothing is counted, and that user's wait from that address starts over.
 * - unchecked: the attempt ended before a verdict (bad request, upstream down); nothing is counted.
 */
export type GuessOutcome = 'refused' | 'accepted' | 'unchecked';

export interface GuessTicket {
  settle(outcome: GuessOutcome): Promise<void>;
}

export interface GuessLimiter {
  /**
   * Counts the attempt before it is made (so parallel guesses cannot overrun a limit), or throws 429.
   * `address` is the client address as seen (any spelling; undefined when unknown): it is keyed here.
   */
  admit(route: GuessRoute, address: string | undefined, username?: string): Promise<GuessTicket>;
}

const BACKOFF_BASE_MS = 1000;

/** Keys carry a digest, not the name: user names stay out of Redis and their length out of key sizes. */
const userKey = (username: string): string =>
  createHash('sha256').update(username.toLowerCase()).digest('base64url').slice(0, 22);

/**
 * One limiter for every place a client can guess an admin-server password or a secret. A user is never
 * locked out by someone else's guesses from another address: the per (user, address) limit only delays
 * that address, and the per-user ceiling is set well above it.
 */
export function createGuessLimiter(deps: {
  limiter: RateLimiter;
  limits: GuessLimits;
  /** The one key of a client address (address-key.ts): spellings and an IPv6 prefix fold together. */
  addressKey: (address: string | undefined) => string;
  metrics: Metrics;
  audit?: Audit;
  logger: Logger;
}): GuessLimiter {
  const { limiter, limits, metrics, logger } = deps;
  const windowMs = limits.windowSec * 1000;
  const maxMs = limits.backoffMaxSec * 1000;
  // Remembered for at least the longest wait, so waiting out the window never resets the doubling.
  const policy: BackoffPolicy = {
    free: limits.backoffAfter,
    baseMs: BACKOFF_BASE_MS,
    maxMs,
    forgetMs: Math.max(windowMs, maxMs),
  };

  return {
    async admit(route, seen, username) {
      const address = deps.addressKey(seen);
      const user = username === undefined ? undefined : userKey(username);
      const steps: Array<[GuessScope, string, (key: string) => Promise<RateLimitResult>]> = [
        ['address', `guess:addr:${address}`, (key) => limiter.hit(key, limits.perAddress, windowMs)],
      ];
      if (user !== undefined) {
        steps.push(['user', `guess:user:${user}`, (key) => limiter.hit(key, limits.perUser, windowMs)]);
        steps.push(['user_address', `guess:pair:${user}:${address}`, (key) => limiter.backoff(key, policy)]);
      }
      const taken: string[] = [];
      for (const [scope, key, take] of steps) {
        const result = await take(key);
        if (!result.allowed) {
          await Promise.all(taken.map((k) => limiter.unhit(k))).catch(() => undefined);
          metrics.guessesLimited.inc({ route, scope });
          deps.audit?.emit({ event: 'limiter.tripped', limit: 'guess', scope, route, ...(address && { address }) });
          // No user name (pino redacts passwords, not names), no password: the address and which limit.
          logger.warn({ route, scope, address, retryAfterMs: result.retryAfterMs }, 'credential guesses limited');
          throw rateLimited('Too many failed attempts; try again later', result.retryAfterMs);
        }
        taken.push(key);
      }
      let settled = false;
      return {
        async settle(outcome) {
          if (settled) return;
          settled = true;
          if (outcome === 'refused') return;
          const pair = outcome === 'accepted' ? taken.find((k) => k.startsWith('guess:pair:')) : undefined;
          // Best effort: the verdict is already decided, a store hiccup here must not change the answer.
          await Promise.all(taken.map((k) => (k === pair ? limiter.reset(k) : limiter.unhit(k)))).catch(
            (err: unknown) => {
              logger.warn({ err, route }, 'could not take back a guess count');
            },
          );
        },
      };
    },
  };
}

/**
 * The outcome of a credential check that ended in `err`. TigerGraph refusing it is `refused`: a 401 (wrong
 * credentials), and also a graph it will not grant (`graph_not_found` at login, `forbidden` for a password
 * user without privileges on the graph), since each of those cost an upstream call just as a wrong secret
 * does; counting only 401s let one valid secret loop `{graph: "nope"}` without limit. Anything else (the
 * store or TigerGraph unavailable, a bad body) is `unchecked` and given back.
 */
export const outcomeOf = (err: unknown): GuessOutcome =>
  err instanceof AppError && (err.status === 401 || err.code === 'graph_not_found' || err.code === 'forbidden')
    ? 'refused'
    : 'unchecked';
