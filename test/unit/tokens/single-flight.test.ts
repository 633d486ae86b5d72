import { describe, expect, it } from '@jest/globals';
import { createSingleFlight } from '../../../src/tokens/single-flight.js';

/** A promise the test settles by hand, so overlap is certain rather than timed. */
function gate<T>() {
  let open!: (value: T) => void;
  let fail!: (err: unknown) => void;
  const promise = new Promise<T>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

describe('single flight', () => {
  it('when many callers ask for one key at once, then the work runs once and all share its result', async () => {
    const flight = createSingleFlight<number>();
    const g = gate<number>();
    let runs = 0;
    const work = () => {
      runs++;
      return g.promise;
    };
    const all = Promise.all(Array.from({ length: 50 }, () => flight.run('sid', work)));
    g.open(7);
    expect(await all).toEqual(Array(50).fill(7));
    expect(runs).toBe(1);
  });

  it('when a call for a key is running, then has() says so for that key only, until it ends', async () => {
    const flight = createSingleFlight<number>();
    const g = gate<number>();
    expect(flight.has('sid')).toBe(false);
    const call = flight.run('sid', () => g.promise);
    expect(flight.has('sid')).toBe(true);
    expect(flight.has('other')).toBe(false);
    g.open(1);
    await call;
    expect(flight.has('sid')).toBe(false);
  });

  it('when keys differ, then each key runs its own work', async () => {
    const flight = createSingleFlight<string>();
    const results = await Promise.all([flight.run('a', async () => 'A'), flight.run('b', async () => 'B')]);
    expect(results).toEqual(['A', 'B']);
  });

  it('when the work fails, then every joined caller sees the error and the next call runs anew', async () => {
    const flight = createSingleFlight<number>();
    const g = gate<number>();
    const first = flight.run('sid', () => g.promise);
    const second = flight.run('sid', async () => 99);
    g.fail(new Error('upstream down'));
    await expect(first).rejects.toThrow('upstream down');
    await expect(second).rejects.toThrow('upstream down');
    await expect(flight.run('sid', async () => 3)).resolves.toBe(3);
    expect(flight.size()).toBe(0);
  });

  it('when the work throws synchronously, then the caller gets a rejection and the key is freed', async () => {
    const flight = createSingleFlight<number>();
    await expect(
      flight.run('sid', () => {
        throw new Error('sync');
      }),
    ).rejects.toThrow('sync');
    expect(flight.size()).toBe(0);
  });

  it('when settled() is awaited, then it resolves only after the running call ends, even if it failed', async () => {
    const flight = createSingleFlight<number>();
    const g = gate<number>();
    const call = flight.run('sid', () => g.promise).catch(() => undefined);
    let settled = false;
    const waiting = flight.settled('sid').then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    g.fail(new Error('x'));
    await waiting;
    await call;
    expect(settled).toBe(true);
  });
});
