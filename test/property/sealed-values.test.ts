import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { createCipher, SealError } from '../../src/crypto/crypto.js';
import type { SealContext } from '../../src/store/types.js';
import { holds, runs } from './fuzz-budget.js';

const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };
const current = createCipher([k1]);
const rotated = createCipher([k2, k1]);

const plain = fc.string({ maxLength: 200, unit: 'grapheme' });
const owner = fc.stringMatching(/^[A-Za-z0-9_-]{1,32}$/);
const purpose = fc.constantFrom<SealContext['purpose']>('session-secret', 'token', 'secret-drop');
const context = fc.record({ purpose, owner });
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** What opening gives: the text, or why it was refused. */
function open(sealed: string, ctx: SealContext, cipher = current, acceptUnbound = false): string | { refused: string } {
  try {
    return cipher.decrypt(sealed, ctx, { acceptUnbound });
  } catch (err) {
    if (err instanceof SealError) return { refused: err.reason };
    throw err;
  }
}

describe('sealed values (pure): AES-GCM bound to purpose and owner', () => {
  it('when any bit of the IV, tag or ciphertext is flipped, then the value is refused', async () => {
    await holds(
      'sealed values: bit flips',
      fc.property(
        plain,
        context,
        fc.nat(),
        fc.integer({ min: 2, max: 4 }),
        fc.nat({ max: 7 }),
        (text, ctx, at, part, bit) => {
          const parts = current.encrypt(text, ctx).split('.');
          const bytes = Buffer.from(parts[part]!, 'base64url');
          if (bytes.length === 0) return; // empty plaintext: no ciphertext byte to flip
          bytes[at % bytes.length]! ^= 1 << bit;
          parts[part] = bytes.toString('base64url');
          expect(open(parts.join('.'), ctx)).toEqual({ refused: 'forged' });
        },
      ),
      { numRuns: runs(1000) },
    );
  });

  it('when any character of the sealed text is replaced, inserted or removed, or the text is truncated, then it is refused or opens to the very same text', async () => {
    const edit = fc.oneof(
      fc.record({
        kind: fc.constant('replace' as const),
        at: fc.nat(),
        char: fc.constantFrom(...B64URL, '.', '=', '+', '/', ' '),
      }),
      fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), char: fc.constantFrom(...B64URL, '.', '=') }),
      fc.record({ kind: fc.constant('remove' as const), at: fc.nat(), char: fc.constant('') }),
      fc.record({ kind: fc.constant('truncate' as const), at: fc.nat(), char: fc.constant('') }),
    );
    await holds(
      'sealed values: text edits',
      fc.property(plain, context, edit, fc.boolean(), (text, ctx, { kind, at, char }, acceptUnbound) => {
        const sealed = current.encrypt(text, ctx);
        const i = at % sealed.length;
        const edited =
          kind === 'replace'
            ? sealed.slice(0, i) + char + sealed.slice(i + 1)
            : kind === 'insert'
              ? sealed.slice(0, i) + char + sealed.slice(i)
              : kind === 'remove'
                ? sealed.slice(0, i) + sealed.slice(i + 1)
                : sealed.slice(0, i);
        const result = open(edited, ctx, current, acceptUnbound);
        // Base64 has spare low bits in a last character, so a few edits decode to the same bytes: harmless.
        if (typeof result === 'string') expect(result).toBe(text);
        else expect(['format', 'unknown_key', 'unbound', 'forged']).toContain(result.refused);
      }),
      { numRuns: runs(1000) },
    );
  });

  it('when a value is opened for another owner or purpose, relabelled to another key id or to the unbound format, then it is refused', async () => {
    await holds(
      'sealed values: copies and relabels',
      fc.property(plain, context, context, (text, ctx, other) => {
        const sealed = current.encrypt(text, ctx);
        if (other.owner !== ctx.owner || other.purpose !== ctx.purpose)
          expect(open(sealed, other)).toEqual({ refused: 'forged' });
        expect(open(sealed.replace(/^v2\.k1\./, 'v2.k2.'), ctx, rotated)).toEqual({ refused: 'forged' });
        expect(open(sealed.replace(/^v2\./, 'v1.'), ctx, current, true)).toEqual({ refused: 'forged' });
        expect(open(sealed.replace(/^v2\./, 'v1.'), ctx)).toEqual({ refused: 'unbound' });
      }),
      { numRuns: runs(1000) },
    );
  });

  it('when the keys rotate, then values sealed under the old key still open, new ones are sealed under the new key, and a cipher without the old key refuses them', async () => {
    const newOnly = createCipher([k2]);
    await holds(
      'sealed values: key rotation',
      fc.property(plain, context, (text, ctx) => {
        const old = current.encrypt(text, ctx);
        expect(open(old, ctx, rotated)).toBe(text);
        const fresh = rotated.encrypt(text, ctx);
        expect(fresh.startsWith('v2.k2.')).toBe(true);
        expect(open(fresh, ctx, rotated)).toBe(text);
        expect(open(old, ctx, newOnly)).toEqual({ refused: 'unknown_key' });
      }),
      { numRuns: runs(1000) },
    );
  });
});
