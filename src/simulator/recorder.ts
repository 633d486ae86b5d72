import type { SeenRequest } from './types.js';

const RING_SIZE = 2000;

/** Per-endpoint call counts and a bounded ring of recent requests; O(1) per request. */
export class Recorder {
  private ring: SeenRequest[] = [];
  private next = 0;
  private tally = new Map<string, number>();

  record(entry: SeenRequest): void {
    const key = `${entry.method} ${entry.path}`;
    this.tally.set(key, (this.tally.get(key) ?? 0) + 1);
    if (this.ring.length < RING_SIZE) {
      this.ring.push(entry);
    } else {
      this.ring[this.next] = entry;
      this.next = (this.next + 1) % RING_SIZE;
    }
  }

  counts(): Record<string, number> {
    return Object.fromEntries(this.tally);
  }

  resetCounts(): void {
    this.tally = new Map();
  }

  resetSeen(): void {
    this.ring = [];
    this.next = 0;
  }

  /** Oldest first; copies, so callers cannot disturb entries still being filled in. */
  seen(): SeenRequest[] {
    const ordered =
      this.ring.length < RING_SIZE ? this.ring : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
    return ordered.map((e) => ({ ...e }));
  }
}
