/**
 * Characters JSON leaves raw that a log reader must not meet raw: the C1 controls (U+0080 to U+009F: U+0085 is a
 * line break to some readers, U+009B opens a terminal escape sequence) and the line and paragraph separators
 * U+2028 and U+2029 (line breaks to JavaScript readers and many viewers). Strings from users, IdPs and
 * TigerGraph (user names, subjects, graph and query names) reach log lines, so a crafted name could forge or
 * hide a line. JSON.stringify escapes C0 controls already; these are written as \uXXXX escapes, which every JSON
 * reader decodes to the same string. Inside a log line they can only stand inside a JSON string.
 */
const INVISIBLE = /[\u0080-\u009f\u2028\u2029]/;
const INVISIBLE_ALL = /[\u0080-\u009f\u2028\u2029]/g;

const escaped = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** pino's `hooks.streamWrite`: the line as written, with those characters escaped (the common line: one scan). */
export function escapeInvisible(line: string): string {
  return INVISIBLE.test(line) ? line.replace(INVISIBLE_ALL, escaped) : line;
}
