import { maskSecret } from './errors.js';

const WORD_CHAR = /[\p{L}\p{N}]/u;
const escape = (value: string): string => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// A value that begins or ends with a letter or digit only counts where it is not part of a longer
// word there: a password "rong" is not in "Wrong", while a token quoted as "token=abc…" still is.
function wholeValue(value: string): string {
  const before = WORD_CHAR.test(value[0]!) ? '(?<![\\p{L}\\p{N}])' : '';
  const after = WORD_CHAR.test(value[value.length - 1]!) ? '(?![\\p{L}\\p{N}])' : '';
  return `${before}${escape(value)}${after}`;
}

/**
 * Replaces every occurrence of the given credentials in a text with their masked form. Only the
 * values themselves are masked, never words that merely contain them. Server messages pass through
 * this before they reach a TigerGraphError, in case a server (or a proxy in front of it) echoes what
 * it was sent; the CLI passes its error lines through it too.
 */
export function redact(text: string, credentials: Iterable<string | undefined>, minLength = 3): string {
  const values = [...new Set(credentials)].filter((c): c is string => typeof c === 'string' && c.length >= minLength);
  if (values.length === 0) return text;
  // Longest first and in one pass, so a credential that contains another is masked as a whole and a
  // mask is never searched again.
  values.sort((a, b) => b.length - a.length);
  const pattern = new RegExp(values.map(wholeValue).join('|'), 'gu');
  return text.replace(pattern, (found) => maskSecret(found));
}
