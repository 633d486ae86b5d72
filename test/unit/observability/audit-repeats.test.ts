import { collapseRepeats } from '../../../src/observability/audit-repeats.js';
import type { AuditEvent } from '../../../src/observability/audit-events.js';

/** collapseRepeats with its window closed by hand: `tick()` is the interval firing. */
function rig(maxKeys = 100) {
  const written: AuditEvent[] = [];
  let tick: () => void = () => undefined;
  let cleared = false;
  const repeats = collapseRepeats((e) => written.push(e), {
    windowMs: 60_000,
    maxKeys,
    setInterval: (fn) => ((tick = fn), {}),
    clearInterval: () => void (cleared = true),
  });
  return { written, repeats, tick: () => tick(), cleared: () => cleared };
}

const limited = (address: string): AuditEvent => ({ event: 'login.limited', login: 'secret', address });

describe('audit: a flood of refusals is collapsed', () => {
  it('when one address is refused 1000 times in a window, then one line at once and one counted line at its end', () => {
    const { written, repeats, tick } = rig();
    for (let i = 0; i < 1000; i++) repeats.emit(limited('10.0.0.1'));
    expect(written).toEqual([limited('10.0.0.1')]);
    tick();
    expect(written).toEqual([limited('10.0.0.1'), { ...limited('10.0.0.1'), repeated: 999 }]);
    // A quiet window writes nothing; the next refusal starts over with a line of its own.
    tick();
    expect(written).toHaveLength(2);
    repeats.emit(limited('10.0.0.1'));
    expect(written).toHaveLength(3);
  });

  it('when events differ in any field, then each is written; events that are not floods are never collapsed', () => {
    const { written, repeats } = rig();
    repeats.emit(limited('10.0.0.1'));
    repeats.emit(limited('10.0.0.2'));
    repeats.emit({ event: 'limiter.tripped', limit: 'guess', scope: 'address', route: 'login' });
    repeats.emit({ event: 'limiter.tripped', limit: 'guess', scope: 'address', route: 'admin' });
    for (let i = 0; i < 3; i++) repeats.emit({ event: 'login.refused', login: 'secret', reason: 'invalid' });
    expect(written).toHaveLength(7);
  });

  it('when a client rotates addresses past the key cap, then the rest is one overflow count, and memory stays at the cap', () => {
    const { written, repeats, tick } = rig(10);
    for (let i = 0; i < 5000; i++) repeats.emit(limited(`2001:db8::${i.toString(16)}`));
    expect(written).toHaveLength(10);
    tick();
    expect(written.slice(10)).toEqual([
      { event: 'limiter.tripped', limit: 'audit', scope: 'overflow', repeated: 4990 },
    ]);
  });

  it('when the service stops, then flush writes what is still counted and stops the timer', () => {
    const { written, repeats, cleared } = rig();
    repeats.emit(limited('10.0.0.1'));
    repeats.emit(limited('10.0.0.1'));
    repeats.flush();
    expect(written).toEqual([limited('10.0.0.1'), { ...limited('10.0.0.1'), repeated: 1 }]);
    expect(cleared()).toBe(true);
  });
});
