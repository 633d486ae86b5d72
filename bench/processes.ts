import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { constants } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

/** A subject (or helper) running as its own process, so its CPU and memory are its own. */
export interface Child {
  name: string;
  pid: number;
  /** Peak resident set size so far in MB (Linux VmHWM), null where /proc is missing. */
  peakRssMb(): number | null;
  /** User + system CPU seconds used so far, null where /proc is missing. */
  cpuSeconds(): number | null;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Starts `command args` with output to `logFile` (a pipe read by this process would steal the load
 * generator's CPU) and resolves once `ready()` says so.
 */
export async function startChild(opts: {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  logFile: string;
  cwd: string;
  ready: () => Promise<boolean>;
  timeoutMs?: number;
}): Promise<Child> {
  const fd = openSync(opts.logFile, 'w');
  const proc: ChildProcess = spawn(opts.command, opts.args, {
    env: opts.env,
    cwd: opts.cwd,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const stop = async (): Promise<void> => {
    live.delete(stop);
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = once(proc, 'exit');
    proc.kill('SIGTERM');
    const killer = setTimeout(() => proc.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(killer);
  };
  process.once('exit', () => proc.kill('SIGKILL'));
  live.add(stop);
  proc.once('exit', () => live.delete(stop));
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  while (!(await opts.ready().catch(() => false))) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(
        `${opts.name} exited early (${proc.exitCode ?? proc.signalCode}); see ${opts.logFile}:\n${tail(opts.logFile)}`,
      );
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${opts.name} did not become ready; see ${opts.logFile}:\n${tail(opts.logFile)}`);
    }
    await sleep(50);
  }
  const pid = proc.pid as number;
  return { name: opts.name, pid, peakRssMb: () => peakRssMb(pid), cpuSeconds: () => cpuSeconds(pid), stop };
}

/**
 * Every child startChild spawned that has not exited yet (the bench's and the soak's own children only), so
 * a signal can end them: a SIGTERM to the runner alone used to leave the redis-server, the simulator and the
 * service running (issue 46), and 'exit' handlers never run when a signal ends the process.
 */
const live = new Set<() => Promise<void>>();

/**
 * On SIGTERM or SIGINT (Ctrl-C): stop every child still running (SIGTERM, SIGKILL after 5 s), run `cleanup`
 * (e.g. deleting key prefixes on a shared Redis), then exit with 128 + the signal's number, as a shell
 * reports a process the signal ended. A second signal meanwhile ends the runner at once (the default).
 */
export function stopChildrenOnSignal(log: (line: string) => void, cleanup?: () => Promise<void>): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping ${live.size} child process(es)`);
      void Promise.allSettled([...live].map((stop) => stop()))
        .then(() => cleanup?.())
        .catch(() => undefined)
        .finally(() => process.exit(128 + constants.signals[signal]));
    });
  }
}

/** The pids of the children still running, for a start line that says what a run owns. */
export function describeChildren(children: readonly Child[]): string {
  return children.map((c) => `${c.name} ${c.pid}`).join(', ');
}

/** Ready when any HTTP answer comes back from `url`. */
export function answers(url: string): () => Promise<boolean> {
  return async () => {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return true;
  };
}

export function peakRssMb(pid: number): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round((Number(match[1]) / 1024) * 10) / 10 : null;
  } catch {
    return null;
  }
}

/**
 * utime + stime from /proc/<pid>/stat. CPU time per request holds up on a busy machine where wall-clock
 * throughput does not: time the process spends waiting for a core is not counted.
 */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

const CLOCK_TICKS = clockTicks();

function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-20).join('\n');
  } catch {
    return '';
  }
}

/** The pids whose parent is `pid` (from /proc/<pid>/stat of every process; empty without /proc). */
export function childPids(pid: number): number[] {
  const found: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
