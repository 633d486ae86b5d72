import { createFaultLog, type Fault } from '../../../src/observability/fault-log.js';
import { createLogger } from '../../../src/observability/logger.js';

/** The fault log over the real logger, its interval closed by hand: `tick()` is the interval ending. */
function rig(level = 'info') {
  const raw: string[] = [];
  const logger = createLogger({ level, destination: { write: (line: string) => raw.push(line) } });
  let tick: () => void = () => undefined;
  const faults = createFaultLog({
    logger,
    intervalMs: 60_000,
    setInterval: (fn) => ((tick = fn), {}),
    clearInterval: () => undefined,
  });
  const lines = () => raw.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { faults, lines, raw, tick: () => tick() };
}

const refused = (address: string, err?: unknown): Fault => ({
  fault: 'redis_refused',
  key: `redis_refused ${address}`,
  message: `Redis refused the connection at ${address} (REDIS_URL)`,
  fields: { address, setting: 'REDIS_URL', hint: 'start Redis there' },
  ...(err !== undefined && { err }),
});

describe('fault log: one line per cause per interval', () => {
  it('when a cause repeats 500 times in an interval, then one line at once and one line with the count at its end', () => {
    const { faults, lines, tick } = rig();
    for (let i = 0; i < 500; i++) faults.report(refused('10.0.0.1:6379'));
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toMatchObject({
      level: 40,
      fault: 'redis_refused',
      address: '10.0.0.1:6379',
      setting: 'REDIS_URL',
    });
    expect(lines()[0]).not.toHaveProperty('repeats');
    tick();
    expect(lines()).toHaveLength(2);
    expect(lines()[1]).toMatchObject({ fault: 'redis_refused', repeats: 499, intervalMs: 60_000 });
    expect(lines()[1]?.msg).toBe(
      'Redis refused the connection at 10.0.0.1:6379 (REDIS_URL) (499 more in the last 60 s)',
    );
    // A quiet interval writes nothing; the next occurrence is logged at once.
    tick();
    expect(lines()).toHaveLength(2);
    faults.report(refused('10.0.0.1:6379'));
    expect(lines()).toHaveLength(3);
  });

  it('when two causes interleave, then each has its own line and its own count', () => {
    const { faults, lines, tick } = rig();
    for (let i = 0; i < 3; i++) {
      faults.report(refused('10.0.0.1:6379'));
      faults.report(refused('10.0.0.2:6379'));
    }
    tick();
    expect(lines().map((l) => [l.address, l.repeats])).toEqual([
      ['10.0.0.1:6379', undefined],
      ['10.0.0.2:6379', undefined],
      ['10.0.0.1:6379', 2],
      ['10.0.0.2:6379', 2],
    ]);
  });

  it('when the error has a stack, then the line carries it only at LOG_LEVEL=debug', () => {
    const err = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:6379'), { code: 'ECONNREFUSED' });
    const info = rig('info');
    info.faults.report(refused('10.0.0.1:6379', err));
    expect(info.raw.join('')).not.toContain('fault-log.test');
    expect(info.lines()[0]).not.toHaveProperty('err');
    const debug = rig('debug');
    debug.faults.report(refused('10.0.0.1:6379', err));
    expect(debug.lines()[0]).toMatchObject({ err: { code: 'ECONNREFUSED' } });
    expect(String((debug.lines()[0]?.err as { stack?: string }).stack)).toContain('fault-log.test');
  });

  it('when the service closes mid-interval, then the pending count is written', () => {
    const { faults, lines } = rig();
    faults.report(refused('10.0.0.1:6379'));
    faults.report(refused('10.0.0.1:6379'));
    faults.close();
    expect(lines().map((l) => l.repeats)).toEqual([undefined, 1]);
  });
});
