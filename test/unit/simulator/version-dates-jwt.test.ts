import { describe, expect, it } from '@jest/globals';
import { gsqlDateString, javaDateString } from '../../../src/simulator/dates.js';
import { createJwtSigner } from '../../../src/simulator/jwt.js';
import { parseVersion } from '../../../src/simulator/version.js';

describe('simulator version eras', () => {
  it.each([
    ['3.4.0', 'query'],
    ['2.6', 'query'],
    ['3.5.0', 'json'],
    ['3.9.3', 'json'],
    ['4.0.1', 'json'],
    ['4.1.0', 'jwt'],
    ['4.2.1', 'jwt'],
    ['5.0', 'jwt'],
  ])('when the version is %s, then the era is %s', (text, era) => {
    expect(parseVersion(text).era).toBe(era);
  });

  it('when the version is not x.y[.z], then it is refused', () => {
    expect(() => parseVersion('latest')).toThrow(/Unsupported TigerGraph version/);
  });

  it('when the version is 3.5 or 3.6, then only 3.6+ may omit the expiration', () => {
    expect(parseVersion('3.5.9').atLeast36).toBe(false);
    expect(parseVersion('3.6.0').atLeast36).toBe(true);
  });
});

describe('simulator dates', () => {
  it('when an epoch is rendered Java-style, then it matches the 4.1 doc sample format', () => {
    expect(javaDateString(Date.UTC(2024, 6, 10, 6, 12, 47) / 1000)).toBe('Wed Jul 10 06:12:47 UTC 2024');
    expect(javaDateString(Date.UTC(2025, 0, 5, 0, 0, 0) / 1000)).toBe('Sun Jan 05 00:00:00 UTC 2025');
  });

  it('when an epoch is rendered for SHOW SECRET, then it is YYYY-MM-DD HH:MM:SS UTC', () => {
    expect(gsqlDateString(Date.UTC(2021, 7, 13, 16, 8, 49) / 1000)).toBe('2021-08-13 16:08:49');
  });
});

describe('simulator JWT signer', () => {
  it('when a token is signed, then the same signer verifies it and another signer does not', () => {
    const signer = createJwtSigner();
    const token = signer.sign({ sub: 'tigergraph', iat: 100, exp: 200, graph: 'social' });
    expect(signer.verify(token)).toMatchObject({
      sub: 'tigergraph',
      iat: 100,
      exp: 200,
      graph: 'social',
      iss: 'TigerGraph',
    });
    expect(createJwtSigner().verify(token)).toBeUndefined();
  });

  it('when the payload is tampered with, then verification fails', () => {
    const signer = createJwtSigner();
    const [h, , s] = signer.sign({ sub: 'a', iat: 1, exp: 2 }).split('.');
    const forged = Buffer.from(JSON.stringify({ sub: 'tigergraph', iat: 1, exp: 9e9 })).toString('base64url');
    expect(signer.verify(`${h}.${forged}.${s}`)).toBeUndefined();
    expect(signer.verify('not-a-jwt')).toBeUndefined();
  });

  it('when two tokens are minted in the same second for the same user, then they differ', () => {
    const signer = createJwtSigner();
    expect(signer.sign({ sub: 'a', iat: 1, exp: 2 })).not.toBe(signer.sign({ sub: 'a', iat: 1, exp: 2 }));
  });
});
