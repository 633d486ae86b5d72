import { TigerGraphError } from './errors.js';
import type { SecretRecord } from './types.js';

// eslint-disable-next-line no-control-regex -- matching the terminal's escape sequences (ESC [) is the point
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;
const RETURN_CODE = /^__GSQL__RETURN__CODE__,(-?\d+)/;

export interface GsqlOutput {
  /** The text a person would see: control lines (`__GSQL__…`) and ANSI escapes removed. */
  text: string;
  /** From a `__GSQL__RETURN__CODE__,<n>` control line, when the server sent one. */
  returnCode: number | undefined;
}

export function cleanGsqlOutput(raw: string): GsqlOutput {
  let returnCode: number | undefined;
  const lines: string[] = [];
  for (const line of raw.replace(ANSI, '').split(/\r?\n/)) {
    const code = RETURN_CODE.exec(line);
    if (code !== null) returnCode = Number(code[1]);
    if (!line.startsWith('__GSQL__')) lines.push(line);
  }
  return { text: lines.join('\n').trim(), returnCode };
}

/**
 * Throws graph_not_found unless the output shows `USE GRAPH <graph>` took: a granted USE GRAPH prints
 * "Using graph 'G'" (as in real SHOW SECRET output); a refusal is prose whose wording varies, so the check
 * looks for the one line a success prints rather than for the words of a refusal.
 */
export function requireGraphUsed(output: string, graph: string): void {
  const used = /^\s*Using graph '([^']*)'/m.exec(cleanGsqlOutput(output).text)?.[1];
  if (used !== graph) {
    throw new TigerGraphError('graph_not_found', `Graph '${graph}' does not exist, or the user may not use it.`);
  }
}

/** CREATE SECRET prints "The secret: <value>" followed by wording that varies; take the next word. */
export function parseCreateSecret(output: string, alias?: string): string {
  if (/already exists/i.test(output)) {
    throw new TigerGraphError('secret_exists', `The secret with alias ${alias ?? '(generated)'} already exists.`, {
      code: 'E-00001',
    });
  }
  const match = /The secret:\s*(\S+)/.exec(output);
  if (match?.[1] === undefined) {
    throw new TigerGraphError('protocol', 'Failed to parse secret from response.', { code: 'E-00002' });
  }
  return match[1];
}

const ITEM = /^\s*-\s*(Secret|Alias|GraphName|Token):\s*(.*?)\s*$/;

/**
 * SHOW SECRET lists "- Secret: abc****xyz", then any number of "- Token: … expire at: …" lines, then
 * "- Alias:" and "- GraphName:". Items are matched by name rather than position, because a secret
 * with live tokens has Token lines between Secret and Alias.
 */
export function parseShowSecrets(output: string): SecretRecord[] {
  const records: SecretRecord[] = [];
  let current: SecretRecord | undefined;
  for (const line of output.split(/\r?\n/)) {
    const item = ITEM.exec(line);
    if (item === null) continue;
    const [, name, value = ''] = item;
    if (name === 'Secret') {
      current = { alias: '', secret: value };
      records.push(current);
    } else if (current !== undefined && name === 'Alias') {
      current.alias = value;
    } else if (current !== undefined && name === 'GraphName') {
      current.graph = value;
    }
  }
  return records.filter((r) => r.alias !== '');
}

/** DROP SECRET reports an unknown alias in its text, not with an HTTP error. */
export function parseDropSecret(output: string, alias: string): void {
  if (/Successfully dropped secret/i.test(output)) return;
  if (/Failed to drop secret/i.test(output) || /does not exist|doesn't exist|not found/i.test(output)) {
    throw new TigerGraphError('secret_not_found', `No secret with alias ${alias} to drop.`);
  }
  throw new TigerGraphError('protocol', `Unexpected answer to DROP SECRET ${alias}: ${firstLine(output)}`);
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((l) => l.trim() !== '' && !l.startsWith('Using graph'))
      ?.slice(0, 200) ?? '(empty)'
  );
}
