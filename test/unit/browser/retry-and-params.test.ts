import { queryString } from '@tigergraph-bff/browser';
import { DEFAULT_RETRY, delayBefore, isIdempotent, retryAfterMs } from '../../../packages/browser/src/retry.js';

describe('browser SDK retry policy', () => {
  it('when Retry-After is seconds or an HTTP date, then it reads as milliseconds; junk reads as absent', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('-1', now)).toBeUndefined();
  });

  it('when the answer asks for longer than maxDelayMs, then no retry; else its wait; without one, capped back-off', () => {
    expect(delayBefore(0, 3_600_000, DEFAULT_RETRY)).toBeUndefined();
    expect(delayBefore(0, 1000, DEFAULT_RETRY)).toBe(1000);
    expect(delayBefore(0, undefined, DEFAULT_RETRY, () => 1)).toBe(250);
    expect(delayBefore(1, undefined, DEFAULT_RETRY, () => 0)).toBe(250);
    expect(delayBefore(30, undefined, DEFAULT_RETRY, () => 1)).toBe(DEFAULT_RETRY.maxDelayMs);
  });

  it("when a method is not idempotent (POST, PATCH), then it is never retried; RFC 9110's idempotent ones are", () => {
    expect(['GET', 'head', 'OPTIONS', 'PUT', 'DELETE'].map(isIdempotent)).toEqual([true, true, true, true, true]);
    expect(['POST', 'PATCH', 'CONNECT'].map(isIdempotent)).toEqual([false, false, false]);
  });
});

describe('browser SDK query parameters', () => {
  it("when parameters hold collections and untyped vertices, then they take RESTPP's query-string form", () => {
    const q = queryString({
      name: 'Ana & Bo',
      n: 3,
      ok: false,
      ids: [1, 2],
      v: { id: 'p1', type: 'Person' },
      vs: [{ id: 'p2', type: 'Person' }],
      left: undefined,
    });
    expect([...new URLSearchParams(q)]).toEqual([
      ['name', 'Ana & Bo'],
      ['n', '3'],
      ['ok', 'false'],
      ['ids', '1'],
      ['ids', '2'],
      ['v', 'p1'],
      ['v.type', 'Person'],
      ['vs[0]', 'p2'],
      ['vs[0].type', 'Person'],
    ]);
  });
});
