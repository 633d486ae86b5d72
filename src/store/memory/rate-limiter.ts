import { ExpiringMap } from '../../cache/expiring-map.js';
import type { RateLimiter } from '../types.js';

/** The Redis limiter's rules in one process: fixed windows that hits never extend, and doubling waits. */
export function createMemoryRateLimiter(): RateLimiter & { close(): void } {
  const windows = new ExpiringMap<{ count: number }>();
  const waits = new ExpiringMap<{ n: number; until: number }>();
  return {
    async hit(key, max, windowMs) {
      const open = windows.get(key);
      if (!open) windows.set(key, { count: 1 }, windowMs);
      else open.count += 1;
      const count = open?.count ?? 1;
      const allowed = count <= max;
      return { allowed, retryAfterMs: allowed ? 0 : Math.max(1, (windows.expiresAt(key) ?? Date.now()) - Date.now()) };
    },
    async backoff(key, policy) {
      const now = Date.now();
      const entry = waits.get(key) ?? { n: 0, until: 0 };
      if (entry.until > now) return { allowed: false, retryAfterMs: entry.until - now };
      entry.n += 1;
      const wait =
        entry.n >= policy.free ? Math.floor(Math.min(policy.maxMs, policy.baseMs * 2 ** (entry.n - policy.free))) : 0;
      if (wait > 0) entry.until = now + wait;
      waits.set(key, entry, policy.forgetMs + wait);
      return { allowed: true, retryAfterMs: 0 };
    },
    async unhit(key) {
      const open = windows.get(key);
      if (open && open.count > 0) open.count -= 1;
      const entry = waits.get(key);
      if (entry) {
        entry.n = Math.max(0, entry.n - 1);
        entry.until = 0;
      }
    },
    async reset(key) {
      windows.delete(key);
      waits.delete(key);
    },
    close: () => {
      windows.close();
      waits.close();
    },
  };
}
