import { describe, expect, test } from '@jest/globals';
import { grantOf } from '../../../src/oidc/idp-token-api.js';
import { accessClaims } from '../../../src/oidc/jwt-claims.js';

const jwt = (payload: Record<string, unknown>) =>
  ['{"alg":"RS256"}', JSON.stringify(payload), 'sig']
    .map((p, i) => (i < 2 ? Buffer.from(p).toString('base64url') : p))
    .join('.');
const NOW = 1_800_000_000_000;

describe('IdP token answers as broker grants', () => {
  test('when the answer says expires_in, then the expiry is now + expires_in (the secret-token policy)', () => {
    const grant = grantOf(
      { access_token: jwt({ sub: 'a', exp: 1 }), token_type: 'bearer', expires_in: 300 },
      'r1',
      NOW,
    );
    expect(grant).toEqual({ token: expect.any(String), expiresAt: NOW / 1000 + 300 });
  });

  test('when it does not, then the JWT exp, and else a short default', () => {
    expect(
      grantOf({ access_token: jwt({ sub: 'a', exp: 1_800_000_123 }), token_type: 'bearer' }, 'r1', NOW).expiresAt,
    ).toBe(1_800_000_123);
    expect(grantOf({ access_token: 'opaque', token_type: 'bearer' }, 'r1', NOW).expiresAt).toBe(NOW / 1000 + 300);
  });

  test('when the IdP rotates the refresh token, then the grant carries it; the same one back is no rotation', () => {
    expect(
      grantOf({ access_token: 'x', token_type: 'bearer', expires_in: 1, refresh_token: 'r2' }, 'r1', NOW).renewWith,
    ).toBe('r2');
    expect(
      grantOf({ access_token: 'x', token_type: 'bearer', expires_in: 1, refresh_token: 'r1' }, 'r1', NOW),
    ).not.toHaveProperty('renewWith');
  });
});

describe('access-token claims', () => {
  test('when the token is a JWT with sub, aud (string or list) and graph, then they are read', () => {
    expect(accessClaims(jwt({ sub: 'alice', aud: 'tg', graph: 'social', exp: 5 }))).toEqual({
      sub: 'alice',
      aud: ['tg'],
      graph: 'social',
      exp: 5,
    });
    expect(accessClaims(jwt({ sub: 'alice', aud: ['a', 'tg', 3] }))?.aud).toEqual(['a', 'tg']);
  });

  test.each([['opaque'], [jwt({ aud: 'tg' })], [jwt({ sub: '' })], ['a.%%%.c'], [jwt({ sub: 7 })]])(
    'when %s, then there are no usable claims',
    (token) => {
      expect(accessClaims(token)).toBeNull();
    },
  );
});
