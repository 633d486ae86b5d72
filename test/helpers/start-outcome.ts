import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { START_MS } from './service-process.js';

export interface StartOutcome {
  /** The exit code, or null when it started listening (then it was killed). */
  code: number | null;
  listened: boolean;
  output: string;
  /** The output with each JSON log line replaced by its `msg` (production writes only JSON lines). */
  said: string;
}

/** The output with each JSON log line replaced by its `msg`; other lines as they are. */
export const messagesOf = (output: string): string =>
  output
    .split('\n')
    .map((line) => {
      try {
        const parsed = JSON.parse(line) as { msg?: unknown };
        return typeof parsed.msg === 'string' ? parsed.msg : line;
      } catch {
        return line;
      }
    })
    .join('\n');

// TGBFF_MAIN runs another build (e.g. an older commit's dist/main.js, to show a regression test fails there).
const MAIN = path.resolve(process.env.TGBFF_MAIN ?? 'dist/main.js');

/**
 * Starts the compiled service with only `env` (and PATH) and reports how the start ended: it exited (a
 * refused configuration), or it logged "listening" (then it is killed at once, so a test that expects a
 * refusal fails fast and leaves nothing running).
 */
export function startOutcome(env: Record<string, string>, timeoutMs = START_MS): Promise<StartOutcome> {
  const proc = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', METRICS_PORT: 'off', LOG_FLUSH_MS: '0', ...env },
    cwd: tmpdir(), // not the checkout, whose .env (if a developer has one) would be read
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let listened = false;
  const onData = (c: Buffer): void => {
    output += c.toString();
    if (!listened && output.includes('"msg":"listening"')) {
      listened = true;
      proc.kill('SIGKILL');
    }
  };
  proc.stdout.on('data', onData);
  proc.stderr.on('data', onData);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`neither exited nor listened within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    proc.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: listened ? null : code, listened, output, said: messagesOf(output) });
    });
  });
}
