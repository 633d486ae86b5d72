import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { Audit } from '../../observability/audit.js';
import type { RateLimiter } from '../../store/types.js';
import type { GuessOutcome, GuessTicket } from './guess-limiter.js';
import { rateLimited } from './rate-limited.js';

/** Logins of any outcome per client address, and successful ones per credential, per window. */
export interface LoginBudgets {
  perAddress: number;
  perCredential: number;
  windowSec: number;
}

export interface LoginBudget {
  /**
   * Counts a login before it is tried (so parallel logins cannot overrun it), or throws 429 rate_limited.
   * `credential` is its keyed id (credential-id.ts); undefined when it is not known before the attempt
   * (single sign-on: the IdP names the subject only once it vouched, and the session cap bounds it then).
   * Settle with the outcome: a refused one stays counted for the address only, an unchecked one not at all.
   */
  take(address: string | undefined, credential?: string): Promise<GuessTicket>;
  /**
   * Counts a login against its credential's budget once the credential is known (single sign-on: the IdP
   * subject, after the IdP vouched), or throws 429 rate_limited; the address was counted by `take` before.
   */
  takeCredential(credential: string): Promise<GuessTicket>;
}

/**
 * What a budget counts: logins (the default), successful /admin Basic auths per TigerGraph user, or
 * back-channel logouts per address. Each has Redis keys of its own (`<route>:addr:…`, `<route>:cred:…`),
 * the same engine and the same answer beyond it: 429 rate_limited with Retry-After.
 */
export type BudgetRoute = 'login' | 'admin' | 'backchannel';

const TOO_MANY: Record<BudgetRoute, string> = {
  login: 'Too many logins; try again later',
  admin: 'Too many admin calls for this user; try again later',
  backchannel: 'Too many back-channel logouts from this address; try again later',
};

/**
 * The budget that successful logins spend too (docs/architecture.md, "Bounded per principal and per address"): each login costs an upstream token (or IdP) call,
 * Redis memory and, until the cap ends it, a live session, so one address or one credential gets a
 * generous number per window and no more, whatever it succeeds at. Failed guesses have their own, tighter
 * limits (guess-limiter.ts). The same engine counts admin calls and back-channel logouts (`route`).
 */
export function createLoginBudget(deps: {
  limiter: RateLimiter;
  budgets: LoginBudgets;
  addressKey: (address: string | undefined) => string;
  metrics: Metrics;
  audit?: Audit;
  logger: Logger;
  /** What is counted; default 'login'. */
  route?: BudgetRoute;
}): LoginBudget {
  const { limiter, budgets, metrics, logger } = deps;
  const route = deps.route ?? 'login';
  const windowMs = budgets.windowSec * 1000;
  const credPrefix = `${route}:cred:`;

  type Step = ['address' | 'credential', string, number];
  const credentialStep = (credential: string): Step => [
    'credential',
    `${credPrefix}${credential}`,
    budgets.perCredential,
  ];

  async function spend(
    steps: Step[],
    address: string | undefined,
    credential: string | undefined,
  ): Promise<GuessTicket> {
    const taken: string[] = [];
    for (const [scope, key, max] of steps) {
      const result = await limiter.hit(key, max, windowMs);
      if (!result.allowed) {
        await Promise.all(taken.map((k) => limiter.unhit(k))).catch(() => undefined);
        metrics.loginBudgetLimited.inc({ scope: route === 'login' ? scope : `${route}_${scope}` });
        deps.audit?.emit({ event: 'limiter.tripped', limit: 'login_budget', scope, route, address });
        // The address key, or the credential's keyed id (first characters): never a secret or a user name.
        logger.warn(
          {
            scope,
            ...(scope === 'address' ? { address } : { credential: credential?.slice(0, 8) }),
            retryAfterMs: result.retryAfterMs,
          },
          `${route} budget spent`,
        );
        throw rateLimited(TOO_MANY[route], result.retryAfterMs);
      }
      taken.push(key);
    }
    let settled = false;
    return {
      async settle(outcome: GuessOutcome) {
        if (settled) return;
        settled = true;
        if (outcome === 'accepted') return;
        const back = outcome === 'unchecked' ? taken : taken.filter((k) => k.startsWith(credPrefix));
        await Promise.all(back.map((k) => limiter.unhit(k))).catch((err: unknown) => {
          logger.warn({ err }, 'could not take back a login count');
        });
      },
    };
  }

  return {
    take(seen, credential) {
      const address = deps.addressKey(seen);
      const steps: Step[] = [['address', `${route}:addr:${address}`, budgets.perAddress]];
      if (credential !== undefined) steps.push(credentialStep(credential));
      return spend(steps, address, credential);
    },
    takeCredential: (credential) => spend([credentialStep(credential)], undefined, credential),
  };
}
