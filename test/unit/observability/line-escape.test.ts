import { describe, expect, it } from '@jest/globals';
import { escapeInvisible } from '../../../src/observability/line-escape.js';

describe('escaping what a log reader must not meet raw', () => {
  it('when a line holds C1 controls or line separators, then each is a \\u escape and the JSON reads the same', () => {
    const user = 'eve\u0085{"forged":1}\u009b31m\u2028\u2029ok';
    const line = JSON.stringify({ user });
    const written = escapeInvisible(line);
    expect(written).toBe('{"user":"eve\\u0085{\\"forged\\":1}\\u009b31m\\u2028\\u2029ok"}');
    expect(written).not.toMatch(/[\u0080-\u009f\u2028\u2029]/);
    expect((JSON.parse(written) as { user: string }).user).toBe(user);
  });

  it('when a line holds none of them, then it is the same string (no copy)', () => {
    const line = '{"msg":"héllo ☃ 名前"}';
    expect(escapeInvisible(line)).toBe(line);
  });
});
