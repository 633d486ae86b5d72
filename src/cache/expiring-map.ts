/**
 * A Map whose entries expire: checked lazily on read, plus an unref'd sweep so keys nobody reads again
 * (rate-limit counters of passing clients, abandoned sessions) do not pile up. Never keeps the process alive.
 */
export class ExpiringMap<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(sweepEveryMs = 60_000) {
    this.sweeper = setInterval(() => this.sweep(), sweepEveryMs);
    this.sweeper.unref();
  }

  get(key: string): V | undefined {
    return this.live(key)?.value;
  }

  /** Epoch ms when the entry lapses, or undefined when absent. */
  expiresAt(key: string): number | undefined {
    return this.live(key)?.expiresAt;
  }

  set(key: string, value: V, ttlMs: number): void {
    this.entries.set(key, { value, expiresAt: Date.now() + ttlMs });
  }

  delete(key: string): boolean {
    return this.entries.delete(key);
  }

  close(): void {
    clearInterval(this.sweeper);
    this.entries.clear();
  }

  private live(key: string): { value: V; expiresAt: number } | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}
