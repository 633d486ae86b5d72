import { TigerGraphError } from '../../../packages/client/src/errors.js';
import { getTokenReturnsTriple, wireEraOf } from '../../../packages/client/src/capabilities.js';
import { compareVersions, parseVersion } from '../../../packages/client/src/version.js';

describe('parseVersion', () => {
  test('when given a dotted version, then each part is read', () => {
    expect(parseVersion('3.9.3')).toEqual({ major: 3, minor: 9, patch: 3 });
    expect(parseVersion('v4.1')).toEqual({ major: 4, minor: 1, patch: 0 });
    expect(parseVersion('release_3.10.1_01-02-2024')).toEqual({ major: 3, minor: 10, patch: 1 });
  });

  test('when the value is unparseable, then a bad_request error names it', () => {
    const attempt = () => parseVersion('latest');
    expect(attempt).toThrow(TigerGraphError);
    expect(attempt).toThrow(/"latest"/);
    try {
      attempt();
    } catch (err) {
      expect((err as TigerGraphError).kind).toBe('bad_request');
    }
  });
});

describe('wireEraOf', () => {
  test.each([
    ['2.6.0', 'query'],
    ['3.4.9', 'query'],
    ['3.5.0', 'json'],
    ['3.9.3', 'json'],
    ['3.10.1', 'json'],
    ['4.0.3', 'json'],
    ['4.1.0', 'jwt'],
    ['4.2.1', 'jwt'],
    ['5.0', 'jwt'],
  ])('when the version is %s, then the era is %s', (version, era) => {
    expect(wireEraOf(version)).toBe(era);
  });

  test('when the version is empty, then it throws rather than guessing an era', () => {
    expect(() => wireEraOf('')).toThrow(expect.objectContaining({ kind: 'bad_request' }));
  });
});

describe('getTokenReturnsTriple', () => {
  test('when the version is 3.5 or earlier, then getToken returns the triple; from 3.6 the token alone', () => {
    expect(getTokenReturnsTriple('3.4.0')).toBe(true);
    expect(getTokenReturnsTriple('3.5.9')).toBe(true);
    expect(getTokenReturnsTriple('3.6.0')).toBe(false);
    expect(getTokenReturnsTriple('4.1.0')).toBe(false);
  });

  test('when versions are compared, then minor parts compare numerically (3.10 > 3.9)', () => {
    expect(compareVersions('3.10.0', '3.9.9')).toBeGreaterThan(0);
  });
});
