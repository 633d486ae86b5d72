/**
 * @paired reads the CPU priorities of the jest it starts, which a parallel (niced) worker would pass on to it
 *
 * The jest runner's stages (test/jest/grouping-runner.js): a real jest, in a child process, runs generated
 * test files that log when they start and end and at which CPU priority, and the log shows what ran beside
 * what.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

type Phase = 'parallel' | 'paired' | 'serial';
const FILES: Record<Phase, string[]> = {
  parallel: ['p1', 'p2', 'p3', 'p4'],
  paired: ['d1', 'd2', 'd3', 'd4', 'd5'],
  serial: ['s1', 's2'],
};
const PRAGMA: Record<Phase, string> = { parallel: '', paired: ' * @paired waits\n', serial: ' * @serial loads\n' };

interface Span {
  name: string;
  phase: Phase;
  start: number;
  end: number;
  /** The file's worker's niceness, and that of a process the file started. */
  nice: number;
  childNice: number;
  /** A parallel file's: whether it saw a file of the kind it waits for start while it ran (up to 20 s). */
  saw?: boolean;
}

/** Most spans open at one instant. */
const widest = (spans: Span[]): number =>
  Math.max(...spans.map((a) => spans.filter((b) => b.start <= a.start && a.start < b.end).length));

describe('the grouping runner', () => {
  let dir: string;
  let spans: Span[];
  let status: number | null;
  let output: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'grouping-runner-'));
    const log = join(dir, 'spans.log');
    const started = join(dir, 'started');
    for (const [phase, names] of Object.entries(FILES) as Array<[Phase, string[]]>) {
      // A parallel file waits (up to 20 s, for a loaded machine) until a paired file (the last one: a serial
      // file) has started: it can only see one if they run side by side. The others wait half a second, so
      // that pairs and single files overlap when they may.
      const wait = (name: string) =>
        phase === 'parallel'
          ? `  let saw = false;\n` +
            `  for (let i = 0; i < 200 && !saw; i += 1) {\n` +
            `    saw = existsSync(${JSON.stringify(started)}) && readFileSync(${JSON.stringify(started)}, 'utf8').includes('${name === 'p4' ? 'serial' : 'paired'}');\n` +
            `    if (!saw) await new Promise((r) => setTimeout(r, 100));\n` +
            `  }\n`
          : `  const saw = undefined;\n  await new Promise((r) => setTimeout(r, 500));\n`;
      for (const name of names) {
        writeFileSync(
          join(dir, `${name}.test.js`),
          `/**\n${PRAGMA[phase]} * a generated file\n */\n` +
            `const { appendFileSync, existsSync, readFileSync } = require('node:fs');\n` +
            `const { execFileSync } = require('node:child_process');\n` +
            `const { getPriority } = require('node:os');\n` +
            `test('${name}', async () => {\n` +
            `  const start = Date.now();\n` +
            `  appendFileSync(${JSON.stringify(started)}, '${phase}\\n');\n` +
            wait(name) +
            `  const childNice = Number(execFileSync(process.execPath, ['-p', 'require("node:os").getPriority()'], { encoding: 'utf8' }));\n` +
            `  appendFileSync(${JSON.stringify(log)}, JSON.stringify({ name: '${name}', phase: '${phase}', start, end: Date.now(), nice: getPriority(), childNice, saw }) + '\\n');\n` +
            `});\n`,
        );
      }
    }
    const config = {
      rootDir: dir,
      testMatch: ['<rootDir>/*.test.js'],
      transform: {},
      testEnvironment: 'node',
      runner: resolve('test/jest/grouping-runner.js'),
      setupFiles: [resolve('test/jest/cpu-priority.cjs')],
      maxWorkers: 4,
      testTimeout: 30_000,
      cacheDirectory: join(dir, 'cache'),
    };
    const run = spawnSync(process.execPath, ['node_modules/jest/bin/jest.js', '--config', JSON.stringify(config)], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: dir },
      timeout: 60_000,
    });
    status = run.status;
    output = `${run.stdout}${run.stderr}`;
    spans = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Span);
  }, 70_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const of = (phase: Phase) => spans.filter((s) => s.phase === phase).sort((a, b) => a.name.localeCompare(b.name));

  it('when files of all three kinds run, then every one runs once and jest passes', () => {
    expect(status).toBe(0);
    expect(output).toContain('11 passed');
    expect(spans.map((s) => s.name).sort()).toEqual(Object.values(FILES).flat().sort());
  });

  it('when the parallel files run, then several at once, beside the paired files and then beside a serial one', () => {
    expect(widest(of('parallel'))).toBeGreaterThan(1);
    // p1 to p3 waited for a paired file to start, p4 for a serial one.
    expect(of('parallel').map((s) => [s.name, s.saw])).toEqual(FILES.parallel.map((n) => [n, true]));
  });

  it('when the paired files run, then exactly two at a time', () => {
    expect(widest(of('paired'))).toBe(2);
  });

  it('when the serial files run, then one at a time, after every paired file has ended', () => {
    expect(widest(of('serial'))).toBe(1);
    const lastPaired = Math.max(...of('paired').map((s) => s.end));
    expect(Math.min(...of('serial').map((s) => s.start))).toBeGreaterThanOrEqual(lastPaired);
  });

  it("when the parallel files run, then at the lowest CPU priority, and so does what they start; paired and serial files at jest's own", () => {
    const own = getPriority();
    const niceOf = (phase: Phase) => of(phase).map((s) => [s.name, s.nice, s.childNice]);
    expect(niceOf('parallel')).toEqual(FILES.parallel.map((n) => [n, 19, 19]));
    expect(niceOf('paired')).toEqual(FILES.paired.map((n) => [n, own, own]));
    expect(niceOf('serial')).toEqual(FILES.serial.map((n) => [n, own, own]));
  });
});
