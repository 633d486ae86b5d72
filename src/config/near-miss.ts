import damerauLevenshtein from 'damerau-levenshtein';

/**
 * Names in the environment that are not settings but look like one (`TRUST_PROXI`, `allowed_origins`,
 * `ALLOWED_ORIGIN`): a setting spelt wrong is otherwise ignored without a word, and its default applies.
 *
 * Differences of case always count; spelling differences count only for names long enough that a short,
 * unrelated name is not caught (`HOME` is one letter from `HOST`): up to one edit for a setting of 6 to 9
 * characters, two from 10. An edit is a letter dropped, doubled, changed, or two neighbours swapped
 * (`REDIS_ULR`): the Damerau-Levenshtein distance, from `damerau-levenshtein` (no dependencies; plain
 * Levenshtein counts a swap as two edits and missed the commonest typo).
 */
export interface NearMiss {
  name: string;
  setting: string;
}

/** Variables the service's own tools read that are not service settings (the CLI's, the simulator's). */
const NOT_SETTINGS = new Set([
  'TG_PASSWORD',
  'TG_TOKEN',
  'TG_SECRET',
  'TG_GRAPH',
  'TG_TIMEOUT_MS',
  'TG_USER',
  'TGBFF_CONFIG',
  'NETRC',
]);

function allowedEdits(setting: string): number {
  if (setting.length >= 10) return 2;
  if (setting.length >= 6) return 1;
  return 0;
}

export function nearMisses(names: Iterable<string>, settings: readonly string[]): NearMiss[] {
  const known = new Set(settings);
  const found: NearMiss[] = [];
  for (const name of names) {
    if (known.has(name) || NOT_SETTINGS.has(name)) continue;
    const upper = name.toUpperCase();
    let best: { setting: string; edits: number } | undefined;
    for (const setting of settings) {
      const edits = upper === setting ? 0 : damerauLevenshtein(upper, setting).steps;
      if (edits <= allowedEdits(setting) && (!best || edits < best.edits)) best = { setting, edits };
    }
    if (best) found.push({ name, setting: best.setting });
  }
  return found;
}

/**
 * For a start refused for missing or bad settings: a line for each refused setting that a near miss in the
 * environment probably meant (`REDIS_URL` missing while `REDIS_ULR` is set), so the fatal line names the typo.
 * Names only, never a value.
 */
export function nearMissHints(refused: Iterable<string>, misses: readonly NearMiss[]): string[] {
  const keys = new Set(refused);
  return misses
    .filter(({ setting }) => keys.has(setting))
    .map(({ name, setting }) => `  ${setting}: ${name} is set, which is not a setting: did you mean ${setting}?`);
}
