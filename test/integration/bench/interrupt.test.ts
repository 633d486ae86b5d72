/**
 * `npm run soak` and `npm run bench` end what they started when they are interrupted (issue 46, item 6)
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { untilMatch, until } from '../../helpers/wait.js';

// Each runner prints one "started: <name> <pid>, …" line once its redis-server, simulator and services are
// up; a SIGTERM then must leave none of those pids alive. dist-bench/ comes from jest's globalSetup.
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function interrupted(
  args: string[],
  env: NodeJS.ProcessEnv,
  signal: 'SIGTERM' | 'SIGINT',
): Promise<{ pids: Map<string, number>; code: number | null; left: string[] }> {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = once(child, 'exit');
  try {
    const [, list] = await untilMatch('the runner to list the processes it started', () => stderr, /started: (.*)\n/, {
      timeoutMs: 60_000,
    });
    const pids = new Map(
      (list as string).split(', ').map((entry) => {
        const [name, pid] = entry.split(' ');
        return [name as string, Number(pid)];
      }),
    );
    // The set-up holds: every process named is running before the signal.
    expect([...pids].filter(([, pid]) => !alive(pid))).toEqual([]);
    child.kill(signal);
    const [code] = (await exited) as [number | null];
    // Reaped by the runner before it exited: gone now (a leftover would be reparented and stay alive).
    const left = await until('the stopped children to be gone', () => {
      const running = [...pids].filter(([, pid]) => alive(pid)).map(([name]) => name);
      return running.length === 0 ? [] : null;
    }).catch(() => [...pids].filter(([, pid]) => alive(pid)).map(([name]) => name));
    return { pids, code, left };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

describe('interrupting the bench runners', () => {
  let out: string;
  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'bench-interrupt-'));
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  test('when npm run soak gets SIGTERM, then its redis-server, simulator and service are gone and it exits 143', async () => {
    const args = ['dist-bench/soak.js', '--minutes', '5', '--rate', '20', '--sessions', '2', '--churn', '0.5'];
    const { pids, code, left } = await interrupted([...args, '--out', join(out, 'soak')], process.env, 'SIGTERM');
    expect([...pids.keys()]).toEqual(['redis-server', 'simulator', 'soak']);
    expect(left).toEqual([]);
    expect(code).toBe(143);
  });

  test('when npm run bench gets SIGINT (Ctrl-C), then its redis-server, simulator and subjects are gone and it exits 130', async () => {
    const env = {
      ...process.env,
      BENCH_ONLY: 'floor,bff-redis',
      BENCH_SECONDS: '300',
      BENCH_WARMUP_SECONDS: '0',
      BENCH_SESSIONS: '2',
      BENCH_OUT: join(out, 'bench'),
      BENCH_LOG_LEVEL: 'warn',
    };
    const { pids, code, left } = await interrupted(['dist-bench/run.js'], env, 'SIGINT');
    expect([...pids.keys()]).toEqual(['redis-server', 'simulator', 'floor', 'bff-redis']);
    expect(left).toEqual([]);
    expect(code).toBe(130);
  });
});
