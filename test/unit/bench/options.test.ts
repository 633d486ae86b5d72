import { parseOptions } from '../../../bench/options.js';

const parse = (env: Record<string, string>, argv: string[] = []) => {
  const options = parseOptions(argv, env, '/tmp/out');
  if (options === 'help') throw new Error('help');
  return options;
};

describe('npm run bench options: the warm-up', () => {
  it('when BENCH_WARMUP_SECONDS is unset, then each measured run has a warm-up (1 s, 0.3 s quick, at most 0.5 s with BENCH_SECONDS)', () => {
    expect(parse({}).warmupSeconds).toBe(1);
    expect(parse({}, ['--quick']).warmupSeconds).toBe(0.3);
    expect(parse({ BENCH_SECONDS: '0.25' }).warmupSeconds).toBe(0.25);
    expect(parse({ BENCH_SECONDS: '8' }).warmupSeconds).toBe(0.5);
  });

  it('when BENCH_WARMUP_SECONDS is 0 or a number of seconds, then that is the warm-up', () => {
    expect(parse({ BENCH_WARMUP_SECONDS: '0', BENCH_SECONDS: '0.25' }).warmupSeconds).toBe(0);
    expect(parse({ BENCH_WARMUP_SECONDS: '2' }, ['--quick']).warmupSeconds).toBe(2);
  });

  it('when BENCH_WARMUP_SECONDS is negative or not a number, then the bench refuses it by name; other settings still refuse 0', () => {
    expect(() => parse({ BENCH_WARMUP_SECONDS: '-1' })).toThrow(/BENCH_WARMUP_SECONDS must be a non-negative number/);
    expect(() => parse({ BENCH_WARMUP_SECONDS: 'soon' })).toThrow(/BENCH_WARMUP_SECONDS/);
    expect(() => parse({ BENCH_SECONDS: '0' })).toThrow(/BENCH_SECONDS must be a positive number/);
  });
});

describe('npm run bench options: the dashboard phase', () => {
  it('when BENCH_PHASES is unset or names dashboard, then the phase runs; named alone, nothing else does', () => {
    expect(parse({}).dashboard).toBe(true);
    expect(parse({ BENCH_PHASES: 'dashboard' })).toMatchObject({ dashboard: true, phases: [] });
    expect(parse({ BENCH_PHASES: 'c50,dashboard' })).toMatchObject({ dashboard: true, phases: ['c50'] });
    expect(parse({ BENCH_PHASES: 'c50' }).dashboard).toBe(false);
    expect(() => parse({ BENCH_PHASES: 'dash' })).toThrow(
      /unknown phase "dash" \(c50, c1, rate, dashboard, overload, scale\)/,
    );
  });
});
