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
  if (novelSymbols(symbols) * perSymbol < MIN_BITS) return 'it repeats long parts of itself';
  return undefined;
}

/** A repeat this long or longer counts as one symbol: it adds next to nothing a guesser must find. */
const MIN_REPEAT = 3;

/**
 * The symbols left when every run that already appeared earlier in the value (MIN_REPEAT or longer) counts as
 * one, as an LZ77 parse counts them: `passwordpasswordpassword!X7y` is 8 new symbols, two repeats and 3 more,
 * where the frequency estimate alone saw 28 symbols of a varied alphabet. A random value repeats almost nothing.
 */
function novelSymbols(symbols: readonly number[]): number {
  let novel = 0;
  for (let i = 0; i < symbols.length; novel++) {
    let longest = 0;
    for (let start = 0; start < i; start++) {
      let length = 0;
      while (i + length < symbols.length && symbols[start + length] === symbols[i + length]) length++;
      if (length > longest) longest = length;
    }
    i += longest >= MIN_REPEAT ? longest : 1;
  }
  return novel;
}

export const charsOf = (text: string): number[] => Array.from(text, (c) => c.codePointAt(0) ?? 0);
export const bytesOf = (key: Uint8Array): number[] => Array.from(key);
