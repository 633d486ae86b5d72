import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface ServiceProcess {
  port: number;
  url: string;
  /** The metrics listener's address (METRICS_PORT, 0 by default here); undefined when the build has none. */
  metricsUrl?: string;
  proc: ChildProcess;
  /** Everything the process wrote, stdout and stderr. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  kill(): Promise<void>;
}

// TGBFF_MAIN runs another build (e.g. an older commit's dist/main.js, to show a regression test fails there).
const MAIN = path.resolve(process.env.TGBFF_MAIN ?? 'dist/main.js');

/**
 * How long a start may take before it counts as failed: how long to wait for "listening", not a property. A
 * start costs about 0.34 s of CPU; on a machine whose cores are taken it may wait seconds for them (30 s ran
 * out under stress-ng --cpu 2 beside the suite).
 */
export const START_MS = 60_000;

/**
 * Starts the compiled service (dist/main.js, built by the jest globalSetup) as a child process with the
 * given environment, PORT=0 and METRICS_PORT=0 (parallel services never collide on a fixed port), and
 * resolves once it logged the ports it listens on.
 */
export async function startServiceProcess(
  env: Record<string, string>,
  timeoutMs = START_MS,
  options: { cwd?: string } = {},
): Promise<ServiceProcess> {
  const proc = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', METRICS_PORT: '0', LOG_LEVEL: 'info', ...env },
    // Away from the checkout, so a developer's .env there never reaches a test's service.
    cwd: options.cwd ?? tmpdir(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    let found = false;
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (found) return;
      const match = /"msg":"listening"[^\n]*"port":(\d+)|"port":(\d+)[^\n]*"msg":"listening"/.exec(out);
      if (match) {
        found = true;
        clearTimeout(timer);
        resolve(Number(match[1] ?? match[2]));
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => {
      if (found) return;
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before listening:\n${out}`));
    });
  });
  const metricsPort = /"metricsPort":(\d+)/.exec(out)?.[1];
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    ...(metricsPort && { metricsUrl: `http://127.0.0.1:${metricsPort}` }),
    proc,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode !== null) return proc.exitCode;
      proc.kill(signal);
      const [code] = (await once(proc, 'exit')) as [number | null];
      return code;
    },
    async kill() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGKILL');
      await once(proc, 'exit');
    },
  };
}
