import { describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { loadExternalJwtVerifier, parseRsaKeys } from '../../../src/simulator/external-jwt.js';
import { mintJwt, rsaKeys } from '../../helpers/jwt-mint.js';

const NOW = 1_700_000_000;
const claims = { sub: 'tigergraph', iat: NOW, exp: NOW + 60 };
const keys = rsaKeys('a');

describe('simulator external JWT keys', () => {
  it('when the key is a private PEM, then its public half is used', () => {
    const pem = keys.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    expect(parseRsaKeys(pem)).toHaveLength(1);
  });

  it('when the key is not RSA, or a JWKS holds no RSA signing key, then it is refused', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .publicKey.export({ format: 'pem', type: 'spki' })
      .toString();
    expect(() => parseRsaKeys(ec)).toThrow(/not RSA/);
    expect(() => parseRsaKeys(JSON.stringify({ keys: [{ ...JSON.parse(keys.jwk), use: 'enc' }] }))).toThrow(
      /no RSA signing key/,
    );
    expect(() => parseRsaKeys('{not json')).toThrow(/does not parse/);
  });
});

describe('simulator external JWT verification', () => {
  it('when a JWKS has several keys, then the token kid picks one; an unknown kid fails the signature', async () => {
    const other = rsaKeys('b');
    const jwks = JSON.stringify({ keys: [JSON.parse(keys.jwk), JSON.parse(other.jwk)] });
    const v = await loadExternalJwtVerifier({ rsaPublicKey: jwks });
    expect(v.verify(mintJwt({ alg: 'RS256', key: other.privateKey, kid: 'b' }, claims), NOW).ok).toBe(true);
    expect(v.verify(mintJwt({ alg: 'RS256', key: other.privateKey, kid: 'a' }, claims), NOW)).toEqual({
      ok: false,
      failure: { kind: 'signature' },
    });
    expect(v.verify(mintJwt({ alg: 'RS256', key: other.privateKey }, claims), NOW).ok).toBe(true);
  });

  it('when alg is outside HS/RS 256-512, then the signature check fails before any key is used', async () => {
    const v = await loadExternalJwtVerifier({ hmacSecret: 'h', rsaPublicKey: keys.publicPem });
    for (const alg of ['none', 'PS256', 'ES256', 'HS1', 'rs256']) {
      expect(v.verify(mintJwt({ alg: 'HS256', key: 'h', header: { alg } }, claims), NOW)).toEqual({
        ok: false,
        failure: { kind: 'signature' },
      });
    }
  });

  it('when exp equals now, then expired; a missing sub or exp, or a numeric graph, is a format failure', async () => {
    const v = await loadExternalJwtVerifier({ hmacSecret: 'h' });
    const hs = (c: Record<string, unknown>) => v.verify(mintJwt({ alg: 'HS256', key: 'h' }, c), NOW);
    expect(hs({ ...claims, exp: NOW })).toEqual({ ok: false, failure: { kind: 'expired' } });
    expect(hs({ ...claims, sub: undefined })).toEqual({ ok: false, failure: { kind: 'format' } });
    expect(hs({ ...claims, exp: undefined })).toEqual({ ok: false, failure: { kind: 'format' } });
    expect(hs({ ...claims, graph: 7 })).toEqual({ ok: false, failure: { kind: 'format' } });
    expect(hs({ ...claims, graph: 'social' })).toEqual({ ok: true, claims: { sub: 'tigergraph', graph: 'social' } });
    expect(hs({ ...claims, iat: NOW + 60 }).ok).toBe(true);
    expect(hs({ ...claims, iat: NOW + 61 })).toEqual({ ok: false, failure: { kind: 'not_yet_valid' } });
  });

  it('when issuer and audience are configured, then the failures carry what the token said', async () => {
    const v = await loadExternalJwtVerifier({ hmacSecret: 'h', issuer: 'I', audience: 'c' });
    const hs = (c: Record<string, unknown>) => v.verify(mintJwt({ alg: 'HS256', key: 'h' }, { ...claims, ...c }), NOW);
    expect(hs({ iss: 'J', aud: 'c' })).toEqual({ ok: false, failure: { kind: 'issuer', given: 'J' } });
    expect(hs({ iss: 'I', aud: ['a', 'b'] })).toEqual({ ok: false, failure: { kind: 'audience', given: ['a', 'b'] } });
    expect(hs({ iss: 'I', aud: ['a', 'c'] }).ok).toBe(true);
  });
});
