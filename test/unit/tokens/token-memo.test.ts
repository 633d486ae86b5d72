import type { TokenState } from '../../../src/store/types.js';
import { TokenMemo } from '../../../src/tokens/token-memo.js';

describe('TokenMemo', () => {
  let t = 0;
  let loads = 0;
  let stored: TokenState | null;
  const clock = () => t;
  const fresh = (s: TokenState) => s.expiresAt > 100;
  const load = async () => {
    loads++;
    await new Promise((resolve) => setImmediate(resolve));
    return stored;
  };
  beforeEach(() => {
    t = 0;
    loads = 0;
    stored = { token: 'tok-1', expiresAt: 1000, version: 1 };
  });

  test('when a fresh state was read, then the next read within the ttl does not load', async () => {
    const memo = new TokenMemo(500, fresh, clock);
    expect(await memo.read('s', load)).toEqual(stored);
    stored = null;
    t = 499;
    expect((await memo.read('s', load))?.token).toBe('tok-1');
    expect(loads).toBe(1);
    t = 500;
    expect(await memo.read('s', load)).toBeNull();
    expect(loads).toBe(2);
  });

  test('when many requests miss at once, then the store is read once for all of them', async () => {
    const memo = new TokenMemo(500, fresh, clock);
    const all = await Promise.all(Array.from({ length: 10 }, () => memo.read('s', load)));
    expect(loads).toBe(1);
    expect(all.every((s) => s?.token === 'tok-1')).toBe(true);
  });

  test('when the state read is not fresh, then it is returned but not remembered', async () => {
    const memo = new TokenMemo(500, fresh, clock);
    stored = { token: 'due', expiresAt: 50, version: 1 };
    expect((await memo.read('s', load))?.token).toBe('due');
    await memo.read('s', load);
    expect(loads).toBe(2);
  });

  test('when forget() comes while a read is in flight, then that read is answered but not remembered', async () => {
    const memo = new TokenMemo(500, fresh, clock);
    const pending = memo.read('s', load);
    t = 1;
    memo.forget('s');
    expect((await pending)?.token).toBe('tok-1');
    stored = { token: 'tok-2', expiresAt: 1000, version: 2 };
    expect((await memo.read('s', load))?.token).toBe('tok-2');
  });

  test('when a state learnt before a forget() is offered, then it is not remembered; one learnt after is', async () => {
    const memo = new TokenMemo(500, fresh, clock);
    const before = memo.now();
    t = 5;
    memo.forget('s');
    memo.remember('s', { token: 'old', expiresAt: 1000, version: 1 }, before);
    expect((await memo.read('s', load))?.token).toBe('tok-1');
    t = 6;
    memo.remember('s', { token: 'new', expiresAt: 1000, version: 3 }, memo.now());
    expect((await memo.read('s', load))?.token).toBe('new');
  });
});
