/** One machine (or the default) entry of a netrc file. */
export interface NetrcEntry {
  /** undefined for the `default` entry. */
  machine: string | undefined;
  login?: string;
  password?: string;
}

/**
 * Splits netrc text into tokens: whitespace separates, double quotes group (backslash escapes the
 * next character inside them), and `#` starting a token comments out the rest of the line.
 * `macdef` bodies run to the next blank line and are dropped: they are ftp macros, not credentials.
 */
function tokenize(text: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  let macroName = false;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === '#') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    const quoted = ch === '"';
    if (quoted) i++;
    let value = '';
    while (i < text.length && (quoted ? text[i] !== '"' : !/\s/.test(text[i]!))) {
      if (text[i] === '\\' && i + 1 < text.length) i++;
      value += text[i]!;
      i++;
    }
    if (quoted) i++;
    tokens.push(value);
    if (macroName) {
      const lineEnd = text.indexOf('\n', i);
      const bodyEnd = lineEnd === -1 ? -1 : text.indexOf('\n\n', lineEnd);
      i = bodyEnd === -1 ? text.length : bodyEnd + 2;
    }
    macroName = !quoted && value === 'macdef';
  }
  return tokens;
}

export function parseNetrc(text: string): NetrcEntry[] {
  const tokens = tokenize(text);
  const entries: NetrcEntry[] = [];
  let current: NetrcEntry | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const word = tokens[i]!;
    if (word === 'machine') {
      current = { machine: tokens[++i] };
      entries.push(current);
    } else if (word === 'default') {
      current = { machine: undefined };
      entries.push(current);
    } else if (word === 'macdef') {
      i++; // the macro name; its body was skipped by the tokenizer
    } else if (current && (word === 'login' || word === 'password' || word === 'account')) {
      const value = tokens[++i];
      if (word !== 'account' && value !== undefined) current[word] = value;
    }
  }
  return entries;
}

/**
 * The first entry for `host` (case-insensitive). The `default` entry only when asked for (curl and ftp
 * fall back to it for any host; here that would send one password to whatever server a URL names).
 * With a `login` (from --user) only entries for that login, or naming none, qualify.
 */
export function findNetrcEntry(
  entries: readonly NetrcEntry[],
  host: string,
  login?: string,
  options: { useDefault?: boolean } = {},
): NetrcEntry | undefined {
  const wanted = host.toLowerCase();
  const fits = (e: NetrcEntry): boolean => login === undefined || e.login === undefined || e.login === login;
  return (
    entries.find((e) => e.machine?.toLowerCase() === wanted && fits(e)) ??
    (options.useDefault === true ? entries.find((e) => e.machine === undefined && fits(e)) : undefined)
  );
}
