/**
 * A line must reach the file within the flush interval
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { until } from '../../helpers/wait.js';

// The service's stdout logger batches lines (LOG_FLUSH_MS): one write per ~4 KiB instead of one per
// request. A batch must still come out on time when traffic is low, and nothing may be lost at exit.
const LOGGER = pathToFileURL(path.resolve('dist/observability/logger.js')).href;

interface Run {
  lines: Array<{ msg: string; at: number }>;
  stderr(): string;
  /** Ends the child's stdin (a script that waits for it then exits). */
  endInput(): void;
  done: Promise<{ code: number | null }>;
}

function start(script: string): Run {
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', `import { createLogger } from ${JSON.stringify(LOGGER)};\n${script}`],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines: Array<{ msg: string; at: number }> = [];
  let rest = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString()).split('\n');
    rest = parts.pop() ?? '';
    for (const line of parts) lines.push({ msg: (JSON.parse(line) as { msg: string }).msg, at: Date.now() });
  });
  return {
    lines,
    stderr: () => stderr,
    endInput: () => child.stdin.end(),
    done: new Promise((resolve) => child.on('close', (code) => resolve({ code }))),
  };
}

async function run(script: string): Promise<{ lines: Run['lines']; code: number | null; stderr: string }> {
  const child = start(script);
  child.endInput();
  const { code } = await child.done;
  return { lines: child.lines, code, stderr: child.stderr() };
}

const FLUSH_MS = 200;

test('when one line is logged and the process stays up, then it is written within the flush interval', async () => {
  // The child logs one line, says so on stderr, and stays up until its stdin ends: nothing but the flush
  // timer can write the line before that.
  const child = start(`
    const log = createLogger({ buffered: { flushMs: ${FLUSH_MS} } });
    log.info('quiet');
    process.stderr.write('logged');
    process.stdin.resume();
    process.stdin.on('end', () => process.exit(0));
  `);
  try {
    await until('the child to log its line', () => child.stderr().includes('logged'), { intervalMs: 5 });
    const loggedAt = Date.now();
    const [line] = await until('the line on stdout while the child is up', () => child.lines[0] && child.lines);
    expect(line!.msg).toBe('quiet');
    // Written by the timer, about FLUSH_MS after it was logged; the second allows for a child waiting for the CPU.
    expect(line!.at - loggedAt).toBeLessThan(FLUSH_MS + 1000);
  } finally {
    child.endInput();
  }
  const { code } = await child.done;
  expect(code).toBe(0);
  expect(child.lines.map((l) => l.msg)).toEqual(['quiet']);
});

test('when the process exits right after logging, then every buffered line is still written, in order', async () => {
  const { lines, code } = await run(`
    const log = createLogger({ buffered: { flushMs: 10000 } });
    for (let i = 0; i < 50; i++) log.info('line ' + i);
    process.exit(3);
  `);
  expect(code).toBe(3);
  expect(lines.map((l) => l.msg)).toEqual(Array.from({ length: 50 }, (_, i) => `line ${i}`));
});

test('when many lines are logged, then they are batched into far fewer writes than lines', async () => {
  // Counts the file-descriptor writes the logger makes (sonic-boom calls fs.write / fs.writeSync).
  const { lines, stderr } = await run(`
    const fs = (await import('node:fs')).default;
    let writes = 0;
    for (const name of ['write', 'writeSync']) {
      const original = fs[name];
      fs[name] = function (fd, ...rest) { if (fd === 1) writes++; return original.call(this, fd, ...rest); };
    }
    const log = createLogger({ buffered: { flushMs: 50 } });
    for (let i = 0; i < 2000; i++) log.info({ i }, 'many');
    setTimeout(() => { process.stderr.write(String(writes)); process.exit(0); }, 500);
  `);
  expect(lines).toHaveLength(2000);
  const writes = Number(stderr);
  expect(writes).toBeGreaterThan(0);
  expect(writes).toBeLessThan(2000 / 10);
});
