import { performance } from 'node:perf_hooks';
import { ShortCache } from '../cache/short-cache.js';
import type { TokenState } from '../store/types.js';
import { createSingleFlight } from './single-flight.js';

interface Read {
  state: TokenState | null;
  startedAt: number;
}

/**
 * The broker's memory of each session's token state, so token() need not read the store per request:
 * fresh states are served for `ttlMs`; a miss is one store read per session at a time, however many
 * requests wait on it; and nothing learnt before a forget() (a rejection, a logout) is remembered
 * after it, so a late read cannot bring back the token that was just dropped.
 */
export class TokenMemo {
  private readonly states: ShortCache<TokenState>;
  private readonly forgotten: ShortCache<number>;
  private readonly reads = createSingleFlight<Read>();

  constructor(
    ttlMs: number,
    private readonly isFresh: (state: TokenState) => boolean,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.states = new ShortCache(ttlMs, 50_000, clock);
    // Outlives any store read or refresh that could still be running when forget() is called.
    this.forgotten = new ShortCache(Math.max(ttlMs, 60_000), 50_000, clock);
  }

  now(): number {
    return this.clock();
  }

  /** A fresh remembered state, else the store's current one (remembered when fresh). */
  async read(sid: string, load: () => Promise<TokenState | null>): Promise<TokenState | null> {
    const known = this.states.get(sid);
    if (known !== undefined && this.isFresh(known)) return known;
    const read = await this.reads.run(sid, async () => {
      const startedAt = this.clock();
      return { state: await load(), startedAt };
    });
    this.remember(sid, read.state, read.startedAt);
    return read.state;
  }

  /** Keeps `state` if it is fresh and nothing was forgotten for `sid` since `learntSince`. */
  remember(sid: string, state: TokenState | null, learntSince: number): void {
    if (state === null || !this.isFresh(state)) return;
    const dropped = this.forgotten.get(sid);
    if (dropped !== undefined && dropped >= learntSince) return;
    this.states.set(sid, state);
  }

  forget(sid: string): void {
    this.states.delete(sid);
    this.forgotten.set(sid, this.clock());
  }
}
