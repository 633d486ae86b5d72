import { StringDecoder } from 'node:string_decoder';
import { CliError, ExitCode } from './cli-error.js';

/** The parts of a TTY read stream the prompt needs; process.stdin when it is a terminal. */
export interface TerminalInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

export interface Prompter {
  /** Reads a line, echoing what is typed. */
  ask(label: string): Promise<string>;
  /** Reads a line without echo, for passwords and secrets. */
  askHidden(label: string): Promise<string>;
}

const CTRL_C = '\u0003';
const CTRL_D = '\u0004';
const CTRL_U = '\u0015';
const BACKSPACES = new Set(['\u007f', '\b']);

/**
 * Reads one line in raw mode, so the terminal echoes nothing and we decide what to show. Raw mode
 * also means Ctrl-C arrives as a byte instead of a signal, hence the explicit cancel.
 */
function readLine(input: TerminalInput, output: NodeJS.WritableStream, label: string, echo: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const decoder = new StringDecoder('utf8');
    let line = '';
    // Echo off before the label shows, or a quick typist's first keys would be echoed.
    input.setRawMode?.(true);
    output.write(label);

    const finish = (err?: CliError): void => {
      input.removeListener('data', onData);
      input.removeListener('end', onEnd);
      input.setRawMode?.(false);
      input.pause();
      output.write('\n');
      if (err) reject(err);
      else resolve(line);
    };
    const onEnd = (): void =>
      finish(new CliError(ExitCode.usage, 'prompt_cancelled', 'input ended before a line was entered'));
    const onData = (chunk: Buffer | string): void => {
      const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
      for (const ch of text) {
        if (ch === '\r' || ch === '\n') return finish();
        if (ch === CTRL_C || (ch === CTRL_D && line === '')) {
          return finish(new CliError(ExitCode.usage, 'prompt_cancelled', 'cancelled at the prompt'));
        }
        if (BACKSPACES.has(ch)) {
          if (line.length > 0 && echo) output.write('\b \b');
          line = [...line].slice(0, -1).join('');
        } else if (ch === CTRL_U) {
          if (echo) output.write('\b \b'.repeat([...line].length));
          line = '';
        } else if (ch >= ' ') {
          line += ch;
          if (echo) output.write(ch);
        }
      }
    };
    input.on('data', onData);
    input.on('end', onEnd);
    input.resume();
  });
}

/** A prompter on a terminal, or undefined when input is not one (scripts must not hang on a prompt). */
export function terminalPrompter(input: TerminalInput, output: NodeJS.WritableStream): Prompter | undefined {
  if (!input.isTTY || typeof input.setRawMode !== 'function') return undefined;
  return {
    ask: (label) => readLine(input, output, label, true),
    askHidden: (label) => readLine(input, output, label, false),
  };
}
