import { recordReader } from '../../../src/store/session-store.js';

describe('recordReader', () => {
  const text = (graph: string) => JSON.stringify({ cookie: { expires: null }, tg: { graph, list: [1, { a: 2 }] } });

  test('when the same session has the same text, then the one parsed record is handed out again', () => {
    const read = recordReader();
    const first = read('s1', text('social'));
    expect(first).toEqual({ cookie: { expires: null }, tg: { graph: 'social', list: [1, { a: 2 }] } });
    expect(read('s1', text('social'))).toBe(first);
  });

  test('when the text changed (a write anywhere), then it is parsed again; another session never shares it', () => {
    const read = recordReader();
    const first = read('s1', text('social'));
    const changed = read('s1', text('other'));
    expect(changed).not.toBe(first);
    expect(changed).toMatchObject({ tg: { graph: 'other' } });
    expect(read('s2', text('other'))).not.toBe(changed);
  });

  test('when a caller tries to change a record, then it throws and the next read is unchanged', () => {
    const read = recordReader();
    const record = read('s1', text('social')) as { tg: { graph: string; list: Array<{ a?: number }> } };
    expect(() => {
      record.tg.graph = 'other';
    }).toThrow(TypeError);
    expect(() => {
      record.tg.list[1]!.a = 3;
    }).toThrow(TypeError);
    expect(read('s1', text('social'))).toMatchObject({ tg: { graph: 'social', list: [1, { a: 2 }] } });
  });

  test('when the text is absent or not a record, then null, as parseSessionRecord says', () => {
    const read = recordReader();
    expect(read('s1', null)).toBeNull();
    expect(read('s1', 'not json')).toBeNull();
    expect(read('s1', '[1,2]')).toBeNull();
  });

  test('when more sessions are read than its cap, then it still answers each right (the cap bounds memory)', () => {
    const read = recordReader(10);
    const records = Array.from({ length: 25 }, (_, i) => read(`s${i}`, text(`g${i}`)));
    records.forEach((r, i) => expect(read(`s${i}`, text(`g${i}`))).toEqual(r));
    const again = read('s24', text('g24'));
    expect(read('s24', text('g24'))).toBe(again);
  });
});
