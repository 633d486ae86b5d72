import { ExpiringMap } from './memory-expiring-map.js';
import type { RateLimiter } from './types.js';

/** Fixed windows like the Redis limiter: the first hit opens the window, later hits never extend it. */
export function createMemoryRateLimiter(): RateLimiter & { close(): void } {
  const windows = new ExpiringMap<{ count: number }>();
  return {
    async hit(key, max, windowMs) {
      const open = windows.get(key);
      if (!open) windows.set(key, { count: 1 }, windowMs);
      else open.count += 1;
      const count = open?.count ?? 1;
      const allowed = count <= max;
      return { allowed, retryAfterMs: allowed ? 0 : Math.max(1, (windows.expiresAt(key) ?? Date.now()) - Date.now()) };
    },
    async reset(key) {
      windows.delete(key);
    },
    close: () => windows.close(),
  };
}
