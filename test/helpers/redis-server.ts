import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';
import type { TlsCert } from './tls-cert.js';
import { until, WAIT_MS } from './wait.js';

export interface RedisServerOptions {
  /** Fixed port; a free one is picked when absent. */
  port?: number;
  /** Config file passed first (e.g. a sentinel.conf, used with args ['--sentinel']). */
  configFile?: string;
  /** Extra arguments, e.g. ['--cluster-enabled', 'yes'] or ['--requirepass', 'x']. */
  args?: string[];
  bin?: string;
  /** How long to wait for the first PING answer (default WAIT_MS: a loaded machine starts processes slowly). */
  startTimeoutMs?: number;
  /**
   * Also listen with TLS on a second free port (`tlsPort`), with this certificate; clients need not
   * present one (`tls-auth-clients no`). The plain port stays open for the start-up check and for checks.
   */
  tls?: TlsCert;
}

/** A private redis-server for tests that stop, crash or freeze Redis; the shared one is never touched. */
export interface RedisServer {
  port: number;
  url: string;
  /** The TLS port, when started with `tls`. */
  tlsPort?: number;
  /** Working directory (for --cluster-config-file and such); removed by a later run once this process ended. */
  dir: string;
  /** Graceful SIGTERM, waits for exit. */
  stop(): Promise<void>;
  /** SIGKILL, waits for exit: a crash. */
  kill(): Promise<void>;
  /** SIGSTOP: the socket stays open, nothing answers (a hung server). */
  pause(): void;
  resume(): void;
  /** Starts again on the same port and arguments (stopping first if still running). */
  restart(): Promise<void>;
  /** Everything redis-server printed, for failure messages. */
  output(): string;
}

/**
 * Where this process's redis-servers keep their files: a folder per test process, under one folder for all,
 * and the folders of processes that have ended are removed here. Nothing can clean up as a jest worker
 * exits: each test file gets a copy of `process` whose `exit` never fires (a listener there left every
 * server's folder behind, about 200 a full run).
 */
function ownFolder(): string {
  const all = join(tmpdir(), 'tgbff-test-redis');
  mkdirSync(all, { recursive: true });
  for (const name of readdirSync(all)) {
    const pid = Number(name);
    if (Number.isInteger(pid) && pid !== process.pid && !running(pid)) {
      rmSync(join(all, name), { recursive: true, force: true });
    }
  }
  const own = join(all, String(process.pid));
  mkdirSync(own, { recursive: true });
  return own;
}

/** Whether a process with this id exists (one we may not signal exists too). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  let port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(ownFolder(), `redis-${port}-`));
  let tlsPort = options.tls ? await freePort() : undefined;
  const argv = (): string[] => [
    ...(options.configFile ? [options.configFile] : []),
    ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    ...(options.tls ? tlsArgs(options.tls, tlsPort!) : []),
    ...(options.args ?? []),
  ];
  let child: ChildProcess | undefined;
  let log = '';

  const launch = async (): Promise<void> => {
    const proc = spawn(options.bin ?? 'redis-server', argv(), { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    proc.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    proc.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    // Its output is complete once its pipes close (after 'exit'): the retry below reads the reason there.
    const closed = new Promise((resolve) => proc.once('close', resolve));
    const exited = () => proc.exitCode !== null || proc.signalCode !== null;
    await until(`redis-server on ${port} to answer PING`, async () => exited() || (await answersPing(port)), {
      timeoutMs: options.startTimeoutMs ?? WAIT_MS,
    }).catch((err: Error) => {
      proc.kill('SIGKILL'); // a live child (and its pipes) would keep the test process from exiting
      throw new Error(`${err.message}:\n${log}`);
    });
    if (exited()) {
      await closed;
      throw new Error(`redis-server exited:\n${log}`);
    }
  };

  // A port freePort() found free can be taken before redis-server binds it, most often as the local port of
  // some other process's outgoing connection (the kernel hands those out from the same range). Then the
  // server exits at once saying so, and a picked port (never a fixed one) is picked again.
  for (let tries = 1; ; tries++) {
    try {
      await launch();
      break;
    } catch (err) {
      const taken = log.includes('Address already in use');
      if (!taken || options.port !== undefined || tries === 5) throw err;
      log = '';
      port = await freePort();
      if (tlsPort !== undefined) tlsPort = await freePort();
    }
  }

  const end = async (signal: NodeJS.Signals): Promise<void> => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    // A stopped process would not act on SIGTERM; SIGKILL ends it as it is (a frozen server that crashes
    // answers nothing more).
    if (signal !== 'SIGKILL') proc.kill('SIGCONT');
    proc.kill(signal);
    await exited;
  };

  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    ...(tlsPort !== undefined && { tlsPort }),
    dir,
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    async restart() {
      await end('SIGTERM');
      await launch();
    },
    output: () => log,
  };
}

/** The server side of TLS; the certificate is self-signed, so it is its own CA (for tls-replication and the cluster bus). */
function tlsArgs(cert: TlsCert, tlsPort: number): string[] {
  return [
    '--tls-port',
    String(tlsPort),
    '--tls-cert-file',
    cert.certFile,
    '--tls-key-file',
    cert.keyFile,
    '--tls-ca-cert-file',
    cert.certFile,
    '--tls-auth-clients',
    'no',
  ];
}

/** Raw RESP so the helper does not depend on the client under test. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      // NOAUTH is an answer too: a server started with --requirepass is up, it just wants a password.
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG') || reply.startsWith('-NOAUTH'));
    });
  });
}
