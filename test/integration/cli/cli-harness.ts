import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WAIT_MS } from '../../helpers/wait.js';

// TGBFF_CLI runs another build (e.g. an older commit's dist/cli/main.js, to show a regression test fails there).
export const CLI = path.resolve(process.env.TGBFF_CLI ?? 'dist/cli/main.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node dist/cli/main.js …` with only the given environment (plus PATH), so the machine's TG_* never leak in. */
export async function runCli(
  args: string[],
  opts: { env?: Record<string, string>; home: string; input?: string },
): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: opts.home, ...opts.env },
    cwd: opts.home, // not the checkout, whose .env (if a developer has one) would be read
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin.end(opts.input ?? '');
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

/** Parses stdout as the single JSON document --json promises. */
export const json = (r: CliResult): Record<string, unknown> => JSON.parse(r.stdout) as Record<string, unknown>;
export const jsonError = (r: CliResult): { code: string; message: string } =>
  (JSON.parse(r.stderr) as { error: { code: string; message: string } }).error;

/** A fresh HOME per test file, so ~/.netrc and ~/.config/tgbff are only what the test writes. */
export async function makeHome(): Promise<{
  dir: string;
  writeFile(rel: string, text: string, mode: number): Promise<string>;
  remove(): Promise<void>;
}> {
  const dir = await mkdtemp(path.join(tmpdir(), 'tgbff-cli-home-'));
  return {
    dir,
    async writeFile(rel, text, mode) {
      const file = path.join(dir, rel);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, text);
      await chmod(file, mode);
      return file;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * A long-running child whose combined output can be awaited for a pattern (sim, serve, the pty): `waitFor`
 * listens to the output itself (no polling) and fails at once if the child exits first.
 */
export interface Watched {
  child: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  exit(): Promise<number | null>;
}

export function watch(child: ChildProcess): Watched {
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (c: Buffer): void => {
    out += c.toString();
    for (const l of listeners) l();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = once(child, 'close').then(([code]) => code as number | null);
  return {
    child,
    output: () => out,
    waitFor(pattern, timeoutMs = WAIT_MS) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const match = pattern.exec(out);
          if (!match) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(match);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no ${pattern} within ${timeoutMs} ms; output so far:\n${out}`));
        }, timeoutMs);
        listeners.add(check);
        check();
        void exited.then(() => {
          if (!listeners.has(check)) return;
          listeners.delete(check);
          clearTimeout(timer);
          reject(new Error(`exited before ${pattern}; output:\n${out}`));
        });
      });
    },
    exit: () => exited,
  };
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Runs the CLI on a pseudo-terminal through util-linux `script`, so it sees a real TTY: the prompt's
 * raw mode and echo are the terminal's, and what the test reads is what a person would see.
 * Type with `child.stdin.write` only after the prompt shows, as a person would; input typed earlier
 * is echoed by the terminal before the CLI can turn echo off.
 */
export function runInPty(args: string[], opts: { env?: Record<string, string>; home: string }): Watched {
  const command = [process.execPath, CLI, ...args].map(shellQuote).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    env: { PATH: process.env.PATH ?? '', HOME: opts.home, SHELL: '/bin/sh', TERM: 'dumb', ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return watch(child);
}
