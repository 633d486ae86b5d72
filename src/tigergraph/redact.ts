import { maskSecret } from './errors.js';

/**
 * Replaces every occurrence of the given credentials in a text with their masked form. Server
 * messages are passed through this before they reach a TigerGraphError, in case a server (or a
 * proxy in front of it) echoes what it was sent.
 */
export function redact(text: string, credentials: ReadonlyArray<string | undefined>): string {
  let out = text;
  const values = credentials.filter((c): c is string => typeof c === 'string' && c.length >= 3);
  // Longest first, so a credential that contains another is masked as a whole.
  for (const value of values.sort((a, b) => b.length - a.length)) {
    out = out.split(value).join(maskSecret(value));
  }
  return out;
}
