import { ShortCache } from '../../../src/cache/short-cache.js';

describe('ShortCache', () => {
  let t = 0;
  const clock = () => t;
  beforeEach(() => {
    t = 0;
  });

  test('when an entry is younger than its ttl, then it is served; at the ttl, then it is gone', () => {
    const cache = new ShortCache<string>(100, 10, clock);
    cache.set('a', 'x');
    t = 99;
    expect(cache.get('a')).toBe('x');
    t = 100;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  test('when an entry is set again, then its ttl starts over', () => {
    const cache = new ShortCache<string>(100, 10, clock);
    cache.set('a', 'x');
    t = 90;
    cache.set('a', 'y');
    t = 150;
    expect(cache.get('a')).toBe('y');
  });

  test('when the cache is full, then the oldest tenth goes first and newer entries stay', () => {
    const cache = new ShortCache<number>(1000, 20, clock);
    for (let i = 0; i < 20; i++) cache.set(`k${i}`, i);
    cache.set('k0', 0); // refreshed: now the newest
    cache.set('new', 99);
    expect(cache.get('k1')).toBeUndefined();
    expect(cache.get('k2')).toBeUndefined();
    expect(cache.get('k3')).toBe(3);
    expect(cache.get('k0')).toBe(0);
    expect(cache.get('new')).toBe(99);
    expect(cache.size).toBe(19);
  });

  test('when an entry is deleted or the cache cleared, then it is not served', () => {
    const cache = new ShortCache<string>(100, 10, clock);
    cache.set('a', 'x');
    cache.set('b', 'y');
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    cache.clear();
    expect(cache.get('b')).toBeUndefined();
  });
});

describe('ShortCache.renew', () => {
  let t = 0;
  const clock = () => t;
  beforeEach(() => {
    t = 0;
  });

  test('when a live entry is renewed, then its value and ttl are new but its eviction place is kept', () => {
    const cache = new ShortCache<number>(1000, 20, clock);
    for (let i = 0; i < 20; i++) cache.set(`k${i}`, i);
    t = 500;
    cache.renew('k0', 100);
    t = 1200;
    expect(cache.get('k5')).toBeUndefined(); // the others ran out at 1000
    cache.set('k5', 5);
    expect(cache.get('k0')).toBe(100); // renewed at 500: lives to 1500
    for (let i = 0; i < 20; i++) cache.set(`n${i}`, i); // fills it: the oldest tenth goes
    expect(cache.get('k0')).toBeUndefined();
  });

  test('when the entry is missing or ran out, then renew sets it as new', () => {
    const cache = new ShortCache<string>(100, 10, clock);
    cache.renew('a', 'x');
    expect(cache.get('a')).toBe('x');
    t = 100;
    cache.renew('a', 'y');
    t = 199;
    expect(cache.get('a')).toBe('y');
    expect(cache.size).toBe(1);
  });
});
