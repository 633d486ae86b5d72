/**
 * The CLIENT LIST line of a connection blocked in a WAIT right now, if any. `cmd` is a connection's last
 * command, so an idle connection whose last command was a WAIT shows `cmd=wait` too; the `b` flag is what
 * says it is blocked.
 */
export function blockedInWait(clientList: unknown): string | undefined {
  return String(clientList)
    .split('\n')
    .find((line) => /\bcmd=wait\b/.test(line) && /\bflags=\S*b/.test(line));
}
