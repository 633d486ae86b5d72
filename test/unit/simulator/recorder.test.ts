import { describe, expect, it } from '@jest/globals';
import { Recorder } from '../../../src/simulator/recorder.js';
import type { SeenRequest } from '../../../src/simulator/types.js';

const entry = (n: number): SeenRequest => ({
  port: 'restpp',
  method: 'GET',
  path: '/echo',
  query: `n=${n}`,
  headers: {},
  status: 200,
  at: n,
});

describe('simulator Recorder', () => {
  it('when more than 2000 requests are recorded, then seen() keeps the last 2000 oldest first', () => {
    const recorder = new Recorder();
    for (let n = 0; n < 2010; n++) recorder.record(entry(n));
    const seen = recorder.seen();
    expect(seen.length).toBe(2000);
    expect(seen[0]!.at).toBe(10);
    expect(seen.at(-1)!.at).toBe(2009);
    expect(seen.every((s, i) => i === 0 || s.at === seen[i - 1]!.at + 1)).toBe(true);
  });

  it('when an entry is filled in after recording, then seen() shows the update but callers get copies', () => {
    const recorder = new Recorder();
    const e = entry(1);
    recorder.record(e);
    e.status = 404;
    const copy = recorder.seen()[0]!;
    expect(copy.status).toBe(404);
    copy.status = 1;
    expect(recorder.seen()[0]!.status).toBe(404);
  });

  it('when counts are reset, then the seen ring is untouched, and resetSeen empties it', () => {
    const recorder = new Recorder();
    recorder.record(entry(1));
    recorder.record(entry(2));
    expect(recorder.counts()).toEqual({ 'GET /echo': 2 });
    recorder.resetCounts();
    expect(recorder.counts()).toEqual({});
    expect(recorder.seen().length).toBe(2);
    recorder.resetSeen();
    expect(recorder.seen()).toEqual([]);
  });
});
