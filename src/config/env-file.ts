import { readFileSync } from 'node:fs';

/** A `.env` that Node's parser would read wrongly: names the file and line, never its content. */
export class EnvFileError extends Error {
  constructor(file: string, what: string, line?: number) {
    super(`${file}${line === undefined ? '' : `, line ${line}`}: ${what}`);
    this.name = 'EnvFileError';
  }
}

const ASSIGNMENT = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$/s;
const QUOTES = new Set(['"', "'", '`']);

/**
 * Node's parser never fails: a line without `=` silently swallows the next key, and an unclosed quote
 * becomes part of the value. Both would start the service with a setting quietly missing, so they
 * are refused here first. Quoted values may span lines, as Node allows.
 */
export function checkEnvFile(text: string, file: string): void {
  // Node keeps a byte-order mark as part of the first key, so that setting would be lost unnoticed.
  if (text.startsWith('\uFEFF'))
    throw new EnvFileError(file, 'starts with a byte-order mark: save it as UTF-8 without BOM', 1);
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = ASSIGNMENT.exec(line);
    if (!match)
      throw new EnvFileError(file, 'expected KEY=value (KEY: letters, digits and _, not starting with a digit)', i + 1);
    const value = match[2]!.trimStart();
    const quote = value[0];
    if (quote === undefined || !QUOTES.has(quote) || value.indexOf(quote, 1) > 0) continue;
    const start = i;
    do i++;
    while (i < lines.length && !lines[i]!.includes(quote));
    if (i >= lines.length)
      throw new EnvFileError(file, `the value opens a ${quote} quote that is never closed`, start + 1);
  }
}

/**
 * Loads `file` into the environment when it exists. `load` is Node's `process.loadEnvFile`, which
 * never overrides a variable that is already set, so the real environment wins.
 */
export function loadEnvFileIfPresent(file: string, load: (file: string) => void): boolean {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new EnvFileError(file, `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  checkEnvFile(text, file);
  load(file);
  return true;
}
