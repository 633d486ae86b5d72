import { performance } from 'node:perf_hooks';

/**
 * A small in-process memo for the request hot path: entries live `ttlMs` (monotonic clock), expire
 * lazily on read, and the oldest go first once `maxEntries` is reached. No timer, so nothing to close
 * and nothing that keeps a process alive.
 */
export class ShortCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 50_000,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until <= this.clock()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V): void {
    // Re-inserting moves the key to the end, so Map order stays oldest-first.
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.dropOldest();
    this.entries.set(key, { value, until: this.clock() + this.ttlMs });
  }

  /**
   * `set` without a new entry when the key is still live: its value and ttl are renewed in place, and it
   * keeps its place in the eviction order (a full cache may drop it before a younger one). For a mark
   * the hot path renews on every request, where that costs at worst one miss; a guard that must outlive
   * its peers (token-memo's `forgotten`) uses `set`.
   */
  renew(key: string, value: V): void {
    const entry = this.entries.get(key);
    const now = this.clock();
    if (entry === undefined || entry.until <= now) return this.set(key, value);
    entry.value = value;
    entry.until = now + this.ttlMs;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Drops a tenth at once, so a full cache does not pay for an eviction on every insert. */
  private dropOldest(): void {
    let n = Math.max(1, Math.floor(this.maxEntries / 10));
    for (const key of this.entries.keys()) {
      this.entries.delete(key);
      if (--n === 0) break;
    }
  }
}
