/** How long and how often: `--quick` for a sub-minute run, BENCH_* env to shorten further (the smoke test). */
export interface BenchOptions {
  quick: boolean;
  rounds: number;
  /** Seconds of each measured run, per phase. */
  seconds: { c50: number; c1: number; rate: number; dashboard: number };
  /** Seconds of unmeasured load before each measured run. */
  warmupSeconds: number;
  sessions: number;
  connections: number;
  /** Where latest.json, latest.svg and the subjects' logs go. */
  outDir: string;
  /** Log level of the BFF processes: info is the production default, so it is what we measure. */
  logLevel: string;
  /** Run the BFF under --cpu-prof (profiles land in outDir/profiles). */
  profile: boolean;
  /** Only these subjects (ids), e.g. BENCH_ONLY=direct,bff-redis while profiling. Direct is always kept. */
  only: string[] | null;
  /** An external Redis instead of a private redis-server (its command counts then include strangers). */
  redisUrl: string | null;
  /**
   * Another build's dist/ (e.g. of the commit before an optimisation): adds its BFF with Redis as one
   * more subject, so before and after are measured in the same interleaved run.
   */
  compareDist: string | null;
  /** Phases to run, in order (default all: c50, c1, rate). A before/after check may want only c50. */
  phases: Array<'c50' | 'c1' | 'rate'>;
  /** The "dashboard" phase (bench/dashboard.ts): request coalescing off and on, after the others. */
  dashboard: boolean;
  /**
   * Phases after the rounds, each on a (d) of its own (issue 46): `overload` (0.8x and 2x of its maximum;
   * in the default full run), `scale` (BENCH_SCALE_SESSIONS sessions; only when BENCH_PHASES names it).
   */
  extraPhases: Array<'overload' | 'scale'>;
  /** Session counts of the scale phase (BENCH_SCALE_SESSIONS, default 10000,50000). */
  scaleSessions: number[];
  /** The overload phase's 2x run once more with stress-ng --cpu 1 beside (BENCH_OVERLOAD_STRESS=1). */
  overloadStress: boolean;
  /** NODE_OPTIONS for the BFF processes (e.g. --max-semi-space-size=4 to trade a little GC for memory). */
  bffNodeOptions: string;
  /**
   * Node command-line flags of the BFF processes, before dist/main.js. Defaults to DEPLOYED_NODE_ARGS,
   * the flags the Dockerfile and `npm start` run the service with, so the bench measures what ships.
   */
  bffNodeArgs: string[];
  /** The same for bff-compare (default: bffNodeArgs), so a runtime flag can be A/B tested in one run. */
  compareNodeArgs: string[];
}

/**
 * The flags the service is deployed with: keep in step with the Dockerfile's CMD and `npm start`.
 * --heap-growing-percent=100: the old generation grows to 2x its live size between full GCs, not the up
 * to 4x V8 allows with a heap limit of 2 GB or more (as on this machine), whose garbage was most of the
 * peak RSS under load (docs/performance.md, "Peak RSS"). Node takes it only on its command line.
 */
export const DEPLOYED_NODE_ARGS: readonly string[] = ['--heap-growing-percent=100'];

export const USAGE = `Usage: npm run bench [-- --quick]

Relay overhead of tigergraph-bff against the simulator, a minimal relay and a plain express peer, all on
loopback, interleaved and repeated. Writes a table to stdout and <out>/latest.json + latest.svg.

  --quick            one short round (under a minute)
  --help             this text

Environment: BENCH_SECONDS (length of every measured run), BENCH_WARMUP_SECONDS (the unmeasured run before
each; 0: none), BENCH_ROUNDS, BENCH_SESSIONS (100),
BENCH_CONNECTIONS (50), BENCH_OUT (bench/results), BENCH_LOG_LEVEL (info), BENCH_PROFILE=1 (--cpu-prof
the BFF), BENCH_ONLY (comma list of subject ids), BENCH_REDIS_URL (default: a private redis-server),
BENCH_COMPARE_DIST (another build's dist/ directory, run as one more subject "bff-compare"),
BENCH_BFF_NODE_OPTIONS (NODE_OPTIONS of the BFF processes; default none, as the Dockerfile runs it),
BENCH_BFF_NODE_ARGS (space-separated node flags of the BFF processes; default the Dockerfile's,
${DEPLOYED_NODE_ARGS.join(' ')}; set it empty for V8's defaults), BENCH_COMPARE_NODE_ARGS (the same for
bff-compare; default BENCH_BFF_NODE_ARGS), BENCH_PHASES (comma list of c50, c1, rate, dashboard, overload, scale;
default c50,c1,rate,dashboard,overload, without overload under --quick; dashboard: 50 users x 8 widgets on 3
heavy queries, RELAY_COALESCE off and on), BENCH_SCALE_SESSIONS (10000,50000),
BENCH_OVERLOAD_STRESS=1 (the 2x overload run again beside stress-ng --cpu 1), BENCH_OVERLOAD_ENV
(OVERLOAD_*=value pairs for the overload phase's service), BENCH_NGINX (/usr/sbin/nginx). BENCH_ONLY may
also name the floor's variants floor-stream, floor-request and floor-defaults.
`;

export function parseOptions(argv: string[], env: NodeJS.ProcessEnv, defaultOutDir: string): BenchOptions | 'help' {
  if (argv.includes('--help')) return 'help';
  const unknown = argv.filter((arg) => arg !== '--quick');
  if (unknown.length > 0) throw new Error(`unknown argument ${unknown[0]}\n\n${USAGE}`);
  const quick = argv.includes('--quick');
  const forced = number(env, 'BENCH_SECONDS');
  const seconds =
    forced !== undefined
      ? { c50: forced, c1: forced, rate: forced, dashboard: forced }
      : quick
        ? { c50: 1.5, c1: 1, rate: 1, dashboard: 2 }
        : { c50: 5, c1: 3, rate: 3, dashboard: 10 };
  return {
    quick,
    rounds: number(env, 'BENCH_ROUNDS') ?? (quick ? 1 : 3),
    seconds,
    warmupSeconds:
      number(env, 'BENCH_WARMUP_SECONDS', true) ?? (forced !== undefined ? Math.min(0.5, forced) : quick ? 0.3 : 1),
    sessions: number(env, 'BENCH_SESSIONS') ?? 100,
    connections: number(env, 'BENCH_CONNECTIONS') ?? 50,
    outDir: env.BENCH_OUT || defaultOutDir,
    logLevel: env.BENCH_LOG_LEVEL || 'info',
    profile: env.BENCH_PROFILE === '1',
    only: env.BENCH_ONLY
      ? env.BENCH_ONLY.split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : null,
    redisUrl: env.BENCH_REDIS_URL || null,
    compareDist: env.BENCH_COMPARE_DIST || null,
    bffNodeOptions: env.BENCH_BFF_NODE_OPTIONS ?? '',
    bffNodeArgs: nodeArgs(env.BENCH_BFF_NODE_ARGS) ?? [...DEPLOYED_NODE_ARGS],
    compareNodeArgs: nodeArgs(env.BENCH_COMPARE_NODE_ARGS) ??
      nodeArgs(env.BENCH_BFF_NODE_ARGS) ?? [...DEPLOYED_NODE_ARGS],
    phases: phases(env.BENCH_PHASES),
    dashboard: !env.BENCH_PHASES || env.BENCH_PHASES.split(',').some((p) => p.trim() === 'dashboard'),
    extraPhases: extraPhases(env.BENCH_PHASES, quick),
    scaleSessions: (env.BENCH_SCALE_SESSIONS || '10000,50000').split(',').map((n) => {
      const v = Number(n);
      if (!Number.isInteger(v) || v < 1) throw new Error(`BENCH_SCALE_SESSIONS: "${n}" is not a session count`);
      return v;
    }),
    overloadStress: env.BENCH_OVERLOAD_STRESS === '1',
  };
}

const EXTRA = ['overload', 'scale'] as const;

function extraPhases(raw: string | undefined, quick: boolean): BenchOptions['extraPhases'] {
  if (!raw) return quick ? [] : ['overload'];
  return raw
    .split(',')
    .map((p) => p.trim())
    .filter((p): p is BenchOptions['extraPhases'][number] => (EXTRA as readonly string[]).includes(p));
}

function phases(raw: string | undefined): BenchOptions['phases'] {
  if (!raw) return ['c50', 'c1', 'rate'];
  const list = raw
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== 'dashboard' && !(EXTRA as readonly string[]).includes(p));
  for (const p of list)
    if (p !== 'c50' && p !== 'c1' && p !== 'rate')
      throw new Error(`BENCH_PHASES: unknown phase "${p}" (c50, c1, rate, dashboard, overload, scale)`);
  // The fixed rate is half of a c=50 result of the same run.
  if (list.includes('rate') && !list.includes('c50')) throw new Error('BENCH_PHASES: rate needs c50 in the same run');
  return list as BenchOptions['phases'];
}

/** Unset: undefined (take the default); set, even to "": that list. */
function nodeArgs(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const args = raw.split(/\s+/).filter(Boolean);
  for (const a of args) if (!a.startsWith('-')) throw new Error(`BENCH_*_NODE_ARGS: "${a}" is not a flag`);
  return args;
}

function number(env: NodeJS.ProcessEnv, key: string, zeroAllowed = false): number | undefined {
  const raw = env[key];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || (n === 0 && !zeroAllowed)) {
    throw new Error(`${key} must be a ${zeroAllowed ? 'non-negative' : 'positive'} number, got "${raw}"`);
  }
  return n;
}
