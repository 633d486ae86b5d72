/**
 * Each subject must get requests through in runs of about a second (a subject starved of CPU for all of one
 * would report 0 req/s)
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

// The benchmark is not a timed test: this only checks that `npm run bench -- --quick` works end to end
// (every subject starts, logs in, takes load and lands in the report), never what the numbers are; but a run
// that got no CPU at all has nothing to report. Its closed-loop runs hold both cores for about 20 s, so the
// files beside it must not guess their deadlines tight (CONTRIBUTING.md, "Waiting in a test"). dist-bench/ comes from jest's globalSetup
// (test/jest/build-dist.js).
// Every measured run lasts BENCH_SECONDS, its warm-up as long: autocannon's closed-loop runs end on its
// one-second tick whatever is asked below that, the fixed-rate phase (paced) takes what is asked. A second,
// as the closed loops take anyway: the fixed rate is half a c=50 result, at least 1/s, and on a machine
// loaded past its cores a quarter of a second at 1/s sent no request at all (0 req/s). No warm-up runs
// (BENCH_WARMUP_SECONDS=0): they are the same runs unmeasured, and were half of this file's CPU.
const run = promisify(execFile);
const SUBJECTS = [
  'direct',
  'floor',
  'plain-peer',
  'bff-redis',
  'bff-memory',
  'bff-refresh',
  'nginx',
  'bff-quota',
  'bff-traced',
];
const REDIS_SUBJECTS = ['plain-peer', 'bff-redis', 'bff-refresh', 'bff-quota', 'bff-traced'];

interface Report {
  machine: { cpus: number; node: string };
  subjects: Array<{
    id: string;
    label: string;
    requests: number;
    failed: number;
    redisCommandsPerRequest: number | null;
    tokenCalls: number;
    peakRssMb: number | null;
    phases: Record<
      'c50' | 'c1' | 'rate',
      { rps: number; p50Ms: number; p99Ms: number; ratioToDirect: number; offeredRps: number | null }
    >;
  }>;
  targets: Array<{ name: string; met: boolean; limit: string }>;
  runs: Array<{ subject: string; phase: string }>;
}

describe('npm run bench -- --quick (smoke)', () => {
  let out: string;
  let stdout: string;
  let report: Report;

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
    const env = {
      ...process.env,
      BENCH_SECONDS: '1',
      BENCH_WARMUP_SECONDS: '0',
      BENCH_SESSIONS: '5',
      BENCH_OUT: out,
      BENCH_LOG_LEVEL: 'warn',
    };
    ({ stdout } = await run(process.execPath, ['dist-bench/run.js', '--quick'], {
      env,
      timeout: 170_000,
      maxBuffer: 1 << 24,
    }));
    report = JSON.parse(readFileSync(join(out, 'latest.json'), 'utf8')) as Report;
  }, 180_000);

  afterAll(() => {
    if (out) rmSync(out, { recursive: true, force: true });
  });

  test('when the quick run finishes, then the report holds every subject, each measured in every phase without failed requests', () => {
    expect(report.subjects.map((s) => s.id)).toEqual(SUBJECTS);
    for (const s of report.subjects) {
      expect({ id: s.id, failed: s.failed }).toEqual({ id: s.id, failed: 0 });
      expect(s.requests).toBeGreaterThan(0);
      for (const phase of ['c50', 'c1', 'rate'] as const) {
        const p = s.phases[phase];
        const measured = p.rps > 0 ? 'measured' : `0 req/s (offered ${p.offeredRps ?? 'closed loop'})`;
        expect([s.id, phase, measured]).toEqual([s.id, phase, 'measured']);
        expect(p.p99Ms).toBeGreaterThanOrEqual(p.p50Ms);
        expect(Number.isFinite(p.ratioToDirect)).toBe(true);
      }
      expect(report.runs.filter((r) => r.subject === s.id).map((r) => r.phase)).toEqual(['c50', 'c1', 'rate']);
    }
    expect(report.subjects.find((s) => s.id === 'direct')?.phases.c50.ratioToDirect).toBe(1);
  });

  test('when the run is over, then Redis commands are counted for the Redis subjects only, and the fixed rate was set', () => {
    for (const s of report.subjects) {
      if (REDIS_SUBJECTS.includes(s.id)) expect(s.redisCommandsPerRequest).toBeGreaterThan(0);
      else expect(s.redisCommandsPerRequest).toBeNull();
      expect(Number.isInteger(s.tokenCalls)).toBe(true);
      expect(s.phases.rate.offeredRps).toBeGreaterThan(0);
    }
  });

  test('when the run is over, then peak RSS is reported per process and every target is checked', () => {
    if (existsSync('/proc/self/status')) {
      // A Node.js process holds tens of MB at least; nginx's worker a few.
      for (const s of report.subjects) expect([s.id, s.peakRssMb]).toEqual([s.id, expect.any(Number)]);
      for (const s of report.subjects) expect(s.peakRssMb).toBeGreaterThan(s.id === 'nginx' ? 1 : 10);
    }
    // --quick runs no overload phase: the eight targets of the rounds (issue 46's among them).
    expect(report.targets.map((t) => t.name)).toHaveLength(8);
    for (const t of report.targets) expect(typeof t.met).toBe('boolean');
    expect(report.machine.cpus).toBeGreaterThan(0);
  });

  test('when the run is over, then stdout has the table with every subject and an SVG chart is written', () => {
    expect(stdout).toContain('req/s c=50');
    for (const s of report.subjects) expect(stdout).toContain(s.label);
    expect(stdout).toMatch(/Targets \(on \(d\)\):/);
    expect(stdout).toMatch(/C anchor \(g\) nginx: \d+ req\/s/);
    const svg = readFileSync(join(out, 'latest.svg'), 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    for (const s of report.subjects) expect(svg).toContain(s.label.replace(/&/g, '&amp;'));
  });
});
