import { RedisStore } from 'connect-redis';
import type { Store } from 'express-session';
import type { SessionClient } from './redis-session-client.js';

/**
 * express-session store on Redis. The TTL follows the cookie's expiry (the idle timeout), and touch
 * stays on so every request slides it; `fallbackTtlSeconds` covers a session without a cookie expiry.
 */
export function createRedisSessionStore(deps: { client: SessionClient; fallbackTtlSeconds?: number }): Store {
  return new RedisStore({
    client: deps.client,
    prefix: '',
    ttl: deps.fallbackTtlSeconds ?? 86_400,
    disableTouch: false,
  });
}
