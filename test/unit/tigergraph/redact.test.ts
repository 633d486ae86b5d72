import { redact } from '../../../packages/client/src/redact.js';

describe('redact', () => {
  it('when a credential is a part of a longer word, then the word survives', () => {
    expect(redact('Wrong password, token or secret.', ['rong', 'oken', 'ecre', 'word'])).toBe(
      'Wrong password, token or secret.',
    );
  });

  it('when the actual value is embedded in a message full of such words, then only the value is masked', () => {
    const secret = 'sfhgkq5vl3o1uij2ln8g8ua01ab6vrn1';
    const text = `Wrong password. The secret ${secret} has no token; secret=${secret}, "${secret}".`;
    expect(redact(text, [secret])).toBe(
      'Wrong password. The secret sfh****rn1 has no token; secret=sfh****rn1, "sfh****rn1".',
    );
  });

  it('when a short value stands alone, then it is masked, and where it is inside a word it is not', () => {
    expect(redact('Wrong: rong (rong)', ['rong'])).toBe('Wrong: **** (****)');
  });

  it('when a value begins or ends with punctuation, then the letter next to it does not shield it', () => {
    expect(redact('user:!p4ss-word! said', ['!p4ss-word!'])).toBe('user:!p4****rd! said');
  });

  it('when one credential contains another, then the longer is masked whole and the mask is not searched again', () => {
    expect(
      redact('a abcdefghijkl b abcdefghijklmnopqrstuvwxyz012345', ['abcdefghijkl', 'abcdefghijklmnopqrstuvwxyz012345']),
    ).toBe('a abc****jkl b abc****345');
  });

  it('when a value holds regular-expression characters, then it is matched literally', () => {
    expect(redact('x a.b*c+d x aXbbcd', ['a.b*c+d'])).toBe('x a.b****c+d x aXbbcd');
  });
});
