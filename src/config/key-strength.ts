/**
 * Production refuses keys anyone could guess: the rule, for a SESSION_SECRET (over its characters) and a
 * SESSION_ENCRYPTION_KEYS key (over its bytes) alike. A value is weak when
 *   - it is one shorter run repeated (`aaaa…`, `abcabc…`, an all-zero key), or
 *   - it uses fewer than MIN_DISTINCT different symbols, or
 *   - its estimated entropy is below MIN_BITS: its length times the Shannon entropy of its own symbol
 *     frequencies (an estimate that ignores order, so it only ever catches values that are weak anyway).
 * A random value clears all three by far: 32 random bytes have about 30 distinct values and ~150 bits by
 * this estimate; 32 random hex characters about 14 distinct and ~115 bits.
 */
export const MIN_DISTINCT = 10;
export const MIN_BITS = 96;

/** What makes `symbols` weak, as words that never quote it; undefined when it is not weak. */
export function weakness(symbols: readonly number[]): string | undefined {
  const n = symbols.length;
  for (let period = 1; period <= n / 2; period++) {
    let repeats = true;
    for (let i = period; i < n && repeats; i++) repeats = symbols[i] === symbols[i - period];
    if (repeats) return period === 1 ? 'it is one character repeated' : 'it is one short run repeated';
  }
  const counts = new Map<number, number>();
  for (const s of symbols) counts.set(s, (counts.get(s) ?? 0) + 1);
  if (counts.size < MIN_DISTINCT) return `it uses fewer than ${MIN_DISTINCT} different characters`;
  let perSymbol = 0;
  for (const c of counts.values()) perSymbol -= (c / n) * Math.log2(c / n);
  if (n * perSymbol < MIN_BITS) return `its estimated entropy is below ${MIN_BITS} bits`;
  return undefined;
}

export const charsOf = (text: string): number[] => Array.from(text, (c) => c.codePointAt(0) ?? 0);
export const bytesOf = (key: Uint8Array): number[] => Array.from(key);
