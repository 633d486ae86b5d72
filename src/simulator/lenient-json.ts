/**
 * Parses a request body the way TigerGraph's token server seems to: JSON whatever the Content-Type,
 * and also Python `str(dict)` pseudo-JSON with single quotes (pyTigerGraph 1.5–1.6 sent that and it
 * worked). Returns undefined when the text is not an object in either form.
 */
export function parseLenientObject(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  const strict = tryParse(trimmed);
  if (strict !== undefined) return strict;
  return tryParse(singleToDoubleQuotes(trimmed));
}

function tryParse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Rewrites 'single quoted' strings as "double quoted" ones, escaping any double quote inside. */
function singleToDoubleQuotes(text: string): string {
  let out = '';
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote === undefined) {
      if (ch === "'") {
        quote = "'";
        out += '"';
      } else {
        if (ch === '"') quote = '"';
        out += ch;
      }
    } else if (ch === '\\' && i + 1 < text.length) {
      const next = text[++i]!;
      out += quote === "'" && next === "'" ? "'" : `\\${next}`;
    } else if (ch === quote) {
      quote = undefined;
      out += '"';
    } else {
      out += quote === "'" && ch === '"' ? '\\"' : ch;
    }
  }
  return out;
}

/** A string field of a parsed body, or undefined. Numbers are accepted and turned into text. */
export function stringField(body: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = body?.[key];
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}
