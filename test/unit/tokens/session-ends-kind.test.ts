import { describe, expect, test } from '@jest/globals';
import { decodeSessionEnd, encodeSessionEnd } from '../../../src/tokens/session-ends.js';

describe('session-end entries and their kind', () => {
  test('when a secret session is recorded, then the entry keeps the 3-element form entries had before OIDC', () => {
    expect(encodeSessionEnd({ sid: 's', endsBy: 1, sealedSecret: 'v2.x' })).toBe('["s",1,"v2.x"]');
    expect(decodeSessionEnd('["s",1,"v2.x"]')).toEqual({ sid: 's', endsBy: 1, sealedSecret: 'v2.x' });
  });

  test('when an OIDC session is recorded, then its kind survives the round trip (its secret goes to the IdP, not TigerGraph)', () => {
    const end = { sid: 's', endsBy: 1, sealedSecret: 'v2.x', kind: 'oidc' as const };
    expect(decodeSessionEnd(encodeSessionEnd(end))).toEqual(end);
  });

  test('when an entry names an unknown kind, then it is not read', () => {
    expect(decodeSessionEnd('["s",1,"v2.x","other"]')).toBeUndefined();
  });
});
