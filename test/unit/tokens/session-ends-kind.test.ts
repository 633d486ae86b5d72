import { describe, expect, test } from '@jest/globals';
import { decodeSessionEnd, encodeSessionEnd } from '../../../src/tokens/session-ends.js';

describe('session-end entries and their kind', () => {
  test('when a secret session is recorded, then the entry keeps the 3-element form entries had before OIDC', () => {
    expect(encodeSessionEnd({ sid: 's', endsBy: 1, sealedCredential: 'v2.x' })).toBe('["s",1,"v2.x"]');
    expect(decodeSessionEnd('["s",1,"v2.x"]')).toEqual({ sid: 's', endsBy: 1, sealedCredential: 'v2.x' });
  });

  test('when an OIDC session is recorded, then its kind survives the round trip (its secret goes to the IdP, not TigerGraph)', () => {
    const end = { sid: 's', endsBy: 1, sealedCredential: 'v2.x', kind: 'oidc' as const };
    expect(decodeSessionEnd(encodeSessionEnd(end))).toEqual(end);
  });

  test('when a password session is recorded, then its secret drop survives the round trip (dropped however it ends)', () => {
    const drop = { alias: 'tgbff_0123456789abcdef', graph: 'social', sealedSecret: 'v2.y' };
    const end = { sid: 's', endsBy: 1, sealedCredential: 'v2.x', kind: 'password' as const, drop };
    expect(encodeSessionEnd(end)).toBe('["s",1,"v2.x","password","tgbff_0123456789abcdef","social","v2.y"]');
    expect(decodeSessionEnd(encodeSessionEnd(end))).toEqual(end);
    expect(decodeSessionEnd(encodeSessionEnd({ ...end, drop: { ...drop, graph: null } }))).toEqual({
      ...end,
      drop: { ...drop, graph: null },
    });
    expect(decodeSessionEnd('["s",1,"v2.x","password"]')).toBeUndefined();
    expect(decodeSessionEnd('["s",1,"v2.x","oidc","a",null,"b"]')).toBeUndefined();
  });

  test('when an entry names an unknown kind, then it is not read', () => {
    expect(decodeSessionEnd('["s",1,"v2.x","other"]')).toBeUndefined();
  });
});
