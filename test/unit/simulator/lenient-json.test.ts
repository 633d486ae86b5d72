import { describe, expect, it } from '@jest/globals';
import { parseLenientObject, stringField } from '../../../src/simulator/lenient-json.js';

describe('simulator lenient JSON', () => {
  it('when the body is strict JSON, then it parses as is', () => {
    expect(parseLenientObject('{"secret":"abc","lifetime":"100"}')).toEqual({ secret: 'abc', lifetime: '100' });
  });

  it('when the body is Python str(dict) with single quotes, then it parses', () => {
    expect(parseLenientObject("{'graph': 'social', 'lifetime': 60}")).toEqual({ graph: 'social', lifetime: 60 });
  });

  it('when a single-quoted string holds a double quote or an escaped single quote, then both survive', () => {
    expect(parseLenientObject(`{'a': 'say "hi"', 'b': 'it\\'s'}`)).toEqual({ a: 'say "hi"', b: "it's" });
  });

  it('when the body is not an object, then undefined', () => {
    expect(parseLenientObject('')).toBeUndefined();
    expect(parseLenientObject('[1,2]')).toBeUndefined();
    expect(parseLenientObject('secret=abc')).toBeUndefined();
    expect(parseLenientObject('{broken')).toBeUndefined();
  });

  it('when a field is a number, then stringField gives its text; other types give undefined', () => {
    expect(stringField({ l: 100 }, 'l')).toBe('100');
    expect(stringField({ l: true }, 'l')).toBeUndefined();
    expect(stringField(undefined, 'l')).toBeUndefined();
  });
});
