import { cookieValue, unsignSessionId } from '../../../src/http/session/signed-cookie.js';

describe('cookieValue', () => {
  test('when the cookie is among others, then its value is found, trimmed', () => {
    expect(cookieValue('a=1; tgbff=xyz ;b=2', 'tgbff')).toBe('xyz');
  });

  test('when the name appears twice, then the first wins (as the cookie package parses it)', () => {
    expect(cookieValue('tgbff=first; tgbff=second', 'tgbff')).toBe('first');
  });

  test('when the value is quoted or %-escaped, then it is unquoted and decoded; a bad escape stays as it is', () => {
    expect(cookieValue('tgbff="s%3Aabc.def"', 'tgbff')).toBe('s:abc.def');
    expect(cookieValue('tgbff=100%zz', 'tgbff')).toBe('100%zz');
  });

  test('when only a longer or shorter name matches, or there is no header, then nothing is found', () => {
    expect(cookieValue('xtgbff=1; tgbf=2; tgbff', 'tgbff')).toBeUndefined();
    expect(cookieValue(undefined, 'tgbff')).toBeUndefined();
  });
});

describe('unsignSessionId', () => {
  // Signed by express-session's cookie-signature for sid "abc" and secret "secret-one" (recorded once).
  const SIGNED = 's:abc.ArbT3aQhtws9ogQoFrq9Sz5zRS+89t/NEZr5KoRcZqY';

  test('when the signature matches any of the secrets, then the session id comes back', () => {
    expect(unsignSessionId(SIGNED, ['secret-one'])).toBe('abc');
    expect(unsignSessionId(SIGNED, ['secret-new', 'secret-one'])).toBe('abc');
  });

  test('when the signature, the id or the secret differ, or the value is unsigned, then null', () => {
    expect(unsignSessionId(SIGNED, ['secret-two'])).toBeNull();
    expect(unsignSessionId(SIGNED.replace('abc', 'abd'), ['secret-one'])).toBeNull();
    expect(unsignSessionId(SIGNED.slice(0, -1), ['secret-one'])).toBeNull();
    expect(unsignSessionId('abc.ArbT3aQhtws9ogQoFrq9Sz5zRS+89t/NEZr5KoRcZqY', ['secret-one'])).toBeNull();
    expect(unsignSessionId('s:nodot', ['secret-one'])).toBeNull();
    expect(unsignSessionId(undefined, ['secret-one'])).toBeNull();
  });
});
