import { redact } from '@tigergraph-bff/client';
import type { CliError } from './cli-error.js';

export interface Output {
  readonly json: boolean;
  /** Registers a secret, token or password that must never appear in full in a message. */
  protect(value: string): void;
  /** The command's result on stdout: `data` as JSON with --json, else the human text. */
  result(data: unknown, human: string): void;
  /** A remark for people on stderr; silent with --json so scripts see only the document. */
  note(text: string): void;
  /** The failure on stderr: one line, or {"error":{code,message}} with --json. */
  error(err: CliError): void;
  /** With --verbose: what the run uses (servers, where credentials came from), one line on stderr ({"info"} with --json). */
  info(text: string): void;
}

interface Writable {
  write(text: string): unknown;
}

// Shorter values would mask ordinary short words ("to", "or") while protecting nothing worth guessing.
const MIN_PROTECTED_LENGTH = 4;

/**
 * Text for a terminal: control characters (other than newline and tab) shown as `\xNN`, so text a server
 * sent (an error message, a listing's names, an alias) cannot drive the terminal (colours, cursor moves,
 * an OSC 52 clipboard write). JSON output needs none of this: JSON.stringify escapes C0, and C1 is escaped
 * here before it too.
 */
export const terminalSafe = (text: string): string =>
  text.replace(
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );

export function createOutput(options: {
  json: boolean;
  verbose?: boolean;
  stdout: Writable;
  stderr: Writable;
}): Output {
  // The actual secret, password and token values this run handled; only these are masked.
  const sensitive = new Set<string>();

  return {
    json: options.json,
    protect(value) {
      if (value.length >= MIN_PROTECTED_LENGTH) sensitive.add(value);
    },
    result(data, human) {
      options.stdout.write(
        options.json ? `${JSON.stringify(data, null, 2)}\n` : terminalSafe(human.endsWith('\n') ? human : `${human}\n`),
      );
    },
    note(text) {
      if (!options.json) options.stderr.write(`${terminalSafe(text)}\n`);
    },
    info(text) {
      if (!options.verbose) return;
      const message = terminalSafe(redact(text, sensitive, MIN_PROTECTED_LENGTH));
      options.stderr.write(options.json ? `${JSON.stringify({ info: message })}\n` : `tgbff: ${message}\n`);
    },
    error(err) {
      const message = terminalSafe(redact(err.message, sensitive, MIN_PROTECTED_LENGTH));
      const line = options.json ? JSON.stringify({ error: { code: err.code, message } }) : `tgbff: ${message}`;
      options.stderr.write(`${line}\n`);
    },
  };
}

/** Rows as aligned columns; the first row is the header. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => (r[col] ?? '').length)));
  return rows
    .map((r) =>
      r
        .map((cell, col) => cell.padEnd(widths[col]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Epoch seconds as an ISO 8601 UTC string. */
export const isoTime = (epochSeconds: number): string => new Date(epochSeconds * 1000).toISOString();
