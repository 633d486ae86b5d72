/**
 * The jest runner's three phases (test/jest/grouping-runner.js): a real jest, in a child process, runs
 * generated test files that log when they start and end, and the log shows what ran beside what.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
    for (const [phase, names] of Object.entries(FILES) as Array<[Phase, string[]]>) {
      for (const name of names) {
        writeFileSync(
          join(dir, `${name}.test.js`),
          `/**\n${PRAGMA[phase]} * a generated file\n */\n` +
            `const { appendFileSync } = require('node:fs');\n` +
            `test('${name}', async () => {\n` +
            `  const start = Date.now();\n` +
            `  await new Promise((r) => setTimeout(r, 500));\n` +
            `  appendFileSync(${JSON.stringify(log)}, JSON.stringify({ name: '${name}', phase: '${phase}', start, end: Date.now() }) + '\\n');\n` +
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
      maxWorkers: 4,
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

  const of = (phase: Phase) => spans.filter((s) => s.phase === phase);

  it('when files of all three kinds run, then every one runs once and jest passes', () => {
    expect(status).toBe(0);
    expect(output).toContain('11 passed');
    expect(spans.map((s) => s.name).sort()).toEqual(Object.values(FILES).flat().sort());
  });

  it('when the parallel files run, then several run at once, and all of them end before a paired file starts', () => {
    expect(widest(of('parallel'))).toBeGreaterThan(1);
    const lastParallel = Math.max(...of('parallel').map((s) => s.end));
    expect(Math.min(...of('paired').map((s) => s.start))).toBeGreaterThanOrEqual(lastParallel);
  });

  it('when the paired files run, then exactly two at a time, and all of them end before a serial file starts', () => {
    expect(widest(of('paired'))).toBe(2);
    const lastPaired = Math.max(...of('paired').map((s) => s.end));
    expect(Math.min(...of('serial').map((s) => s.start))).toBeGreaterThanOrEqual(lastPaired);
  });

  it('when the serial files run, then one at a time', () => {
    expect(widest(of('serial'))).toBe(1);
  });
});
