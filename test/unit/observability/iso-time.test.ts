import pino from 'pino';
import { isoTimeByMillisecond } from '../../../src/observability/logger.js';

describe('isoTimeByMillisecond', () => {
  test("when called, then it writes pino's isoTime text for the clock's millisecond", () => {
    const real = Date.now;
    for (const ms of [0, 1_764_000_000_123, 1_764_000_000_999]) {
      Date.now = () => ms;
      try {
        expect(isoTimeByMillisecond(() => ms)()).toBe(pino.stdTimeFunctions.isoTime());
      } finally {
        Date.now = real;
      }
    }
  });

  test('when the millisecond changes, then the text changes with it; within one, it is the same text', () => {
    let ms = 1_764_000_000_000;
    const time = isoTimeByMillisecond(() => ms);
    const first = time();
    expect(time()).toBe(first);
    ms += 1;
    expect(time()).toBe(',"time":"2025-11-24T16:00:00.001Z"');
    expect(first).toBe(',"time":"2025-11-24T16:00:00.000Z"');
  });
});
