import { createCipheriv, randomBytes } from 'node:crypto';
import { createCipher, parseEncryptionKeys, sealedAs, SealError } from '../../../src/crypto/crypto.js';

const keyA = { id: 'a', key: randomBytes(32) };
const keyB = { id: 'b', key: randomBytes(32) };
const SEALED_SHAPE = /^v2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]*$/;

const ctx = sealedAs.sessionSecret('sid-1');

/** What 0.1.x wrote: `v1.<id>.…` with only the header as additional data. */
function sealUnbound(key: { id: string; key: Buffer }, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  cipher.setAAD(Buffer.from(`v1.${key.id}`));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [
    'v1',
    key.id,
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    body.toString('base64url'),
  ].join('.');
}

/** Replaces one character of part `index` (split on '.') with a different one. */
function tamper(sealed: string, index: number): string {
  const parts = sealed.split('.');
  const part = parts[index]!;
  const flipped = part[0] === 'A' ? 'B' : 'A';
  parts[index] = flipped + part.slice(1);
  return parts.join('.');
}

describe('createCipher', () => {
  test('when a value is encrypted, then it decrypts to the same text and has the v2 shape', () => {
    const cipher = createCipher([keyA]);
    const sealed = cipher.encrypt('tok-ünïcode-123', ctx);
    expect(sealed).toMatch(SEALED_SHAPE);
    expect(sealed.startsWith('v2.a.')).toBe(true);
    expect(sealed).not.toContain('tok-');
    expect(cipher.decrypt(sealed, ctx)).toBe('tok-ünïcode-123');
  });

  test('when the same text is encrypted twice, then the outputs differ (random IV)', () => {
    const cipher = createCipher([keyA]);
    expect(cipher.encrypt('same', ctx)).not.toBe(cipher.encrypt('same', ctx));
  });

  test('when a new key is put first, then it encrypts and the old key still decrypts', () => {
    const before = createCipher([keyA]);
    const rotated = createCipher([keyB, keyA]);
    const old = before.encrypt('old-secret', ctx);
    expect(rotated.decrypt(old, ctx)).toBe('old-secret');
    const fresh = rotated.encrypt('new-secret', ctx);
    expect(fresh.startsWith('v2.b.')).toBe(true);
    expect(rotated.decrypt(fresh, ctx)).toBe('new-secret');
  });

  test('when the key id is unknown, then decrypt throws naming the id', () => {
    const sealed = createCipher([keyB]).encrypt('x', ctx);
    expect(() => createCipher([keyA]).decrypt(sealed, ctx)).toThrow(/unknown key id "b"/);
  });

  test.each([
    ['iv', 2],
    ['tag', 3],
    ['ciphertext', 4],
  ])('when the %s is tampered with, then decrypt throws', (_part, index) => {
    const cipher = createCipher([keyA]);
    const sealed = cipher.encrypt('some secret text', ctx);
    expect(() => cipher.decrypt(tamper(sealed, index), ctx)).toThrow(/failed authentication/);
  });

  test('when a value is relabelled to another known key id, then decrypt throws', () => {
    const cipher = createCipher([keyA, { id: 'c', key: keyA.key }]);
    const relabelled = cipher.encrypt('x', ctx).replace(/^v2\.a\./, 'v2.c.');
    expect(() => cipher.decrypt(relabelled, ctx)).toThrow(/failed authentication/);
  });

  test('when the tag is truncated, then decrypt throws', () => {
    const cipher = createCipher([keyA]);
    const parts = cipher.encrypt('x', ctx).split('.');
    parts[3] = parts[3]!.slice(0, 6);
    expect(() => cipher.decrypt(parts.join('.'), ctx)).toThrow();
  });

  test.each(['', 'plain', 'v3.a.x.y.z', 'v2.a.x.y'])(
    'when the input is not a sealed value (%p), then decrypt throws',
    (input) => {
      expect(() => createCipher([keyA]).decrypt(input, ctx)).toThrow(/unsupported format/);
    },
  );

  test.each([
    ['another session', sealedAs.sessionSecret('sid-2')],
    ['another purpose, same owner', sealedAs.token('sid-1')],
    ['a drop entry', sealedAs.secretDrop('sid-1')],
  ])('when a value is opened as %s, then decrypt throws a forged SealError', (_what, other) => {
    const cipher = createCipher([keyA]);
    const sealed = cipher.encrypt('secret-of-sid-1', ctx);
    expect(() => cipher.decrypt(sealed, other)).toThrow(SealError);
    expect(() => cipher.decrypt(sealed, other)).toThrow(/failed authentication/);
    expect(cipher.decrypt(sealed, ctx)).toBe('secret-of-sid-1');
  });

  test('when a value sealed by 0.1.x (v1, unbound) is opened, then it is refused as unbound unless asked to accept it', () => {
    const cipher = createCipher([keyA]);
    const old = sealUnbound(keyA, 'old-secret');
    let reason = '';
    try {
      cipher.decrypt(old, ctx);
    } catch (err) {
      reason = err instanceof SealError ? err.reason : 'other';
    }
    expect(reason).toBe('unbound');
    expect(cipher.decrypt(old, sealedAs.secretDrop('alias'), { acceptUnbound: true })).toBe('old-secret');
    expect(() => cipher.decrypt(tamper(old, 4), ctx, { acceptUnbound: true })).toThrow(/failed authentication/);
  });

  test('when a key is not 32 bytes or ids repeat or none is given, then createCipher throws', () => {
    expect(() => createCipher([{ id: 'short', key: randomBytes(16) }])).toThrow(/"short" must be 32 bytes/);
    expect(() => createCipher([keyA, { id: 'a', key: randomBytes(32) }])).toThrow(/"a" appears twice/);
    expect(() => createCipher([])).toThrow(/at least one/);
  });
});

describe('parseEncryptionKeys', () => {
  const b64 = (bytes: Buffer): string => bytes.toString('base64');

  test('when entries are valid, then it returns them in order with decoded keys', () => {
    const keys = parseEncryptionKeys(`new:${b64(keyB.key)}, old:${keyA.key.toString('base64url')}`);
    expect(keys.map((k) => k.id)).toEqual(['new', 'old']);
    expect(keys[0]!.key.equals(keyB.key)).toBe(true);
    expect(keys[1]!.key.equals(keyA.key)).toBe(true);
  });

  test('when a key has the wrong length, then the error names the id and not the key', () => {
    const short = b64(randomBytes(16));
    let message = '';
    try {
      parseEncryptionKeys(`good:${b64(keyA.key)},bad:${short}`);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/key "bad" must be 32 bytes.*got 16/);
    expect(message).not.toContain(short);
    expect(message).not.toContain(short.slice(0, 8));
  });

  test('when a key is not base64, then the error names the id and not the text', () => {
    expect(() => parseEncryptionKeys('k1:not base64 at all!')).toThrow(/key "k1" must be 32 bytes/);
    expect(() => parseEncryptionKeys('k1:not base64 at all!')).not.toThrow(/at all/);
  });

  test('when an entry has no id, then the error names its position and not its content', () => {
    const key = b64(keyA.key);
    expect(() => parseEncryptionKeys(`a:${key},${key}`)).toThrow(/entry 2 needs an id/);
    expect(() => parseEncryptionKeys(`a:${key},${key}`)).not.toThrow(
      new RegExp(key.slice(0, 10).replace(/[+/]/g, '.')),
    );
  });

  test('when an id repeats or nothing is given, then it throws', () => {
    expect(() => parseEncryptionKeys(`a:${b64(keyA.key)},a:${b64(keyB.key)}`)).toThrow(/"a" appears twice/);
    expect(() => parseEncryptionKeys(' , ')).toThrow(/at least one/);
  });
});
