/** What `npm run soak` holds and for how long. */
export interface SoakOptions {
  minutes: number;
  /** Requests per second to hold; null: half the maximum measured first (the benchmark's c=50 load). */
  rate: number | null;
  /** Seconds of the maximum-load probe. */
  probeSeconds: number;
  /** Sessions logged in at any time; churn replaces some of them every second. */
  sessions: number;
  /** Logins (each with a logout of the session it replaces) per second. */
  churnPerSec: number;
  /** Seconds between refreshes of one session's token (TG_TOKEN_LIFETIME − TOKEN_REFRESH_BEFORE). */
  refreshEverySec: number;
  connections: number;
  /** Where soak-latest.json and the processes' logs go. */
  outDir: string;
}

export const SOAK_USAGE = `Usage: npm run soak -- [--minutes N] [--rate R] [--sessions S] [--churn C] [--refresh-every S]

Holds half of the maximum load of one tigergraph-bff (Redis store, simulator upstream; the maximum is
measured first with ${'autocannon'} at 50 connections, or given with --rate) over many sessions, with
logins, logouts and token refreshes mixed in. Prints RSS, p99, open file descriptors of the BFF process
and Redis memory per session at the start and the end, and one summary line; exits 2 when a goal is
missed (RSS growth < 10 %, p99 drift < 20 %, no descriptor growth).

  --minutes N        how long to hold the load (default 10; fractions allowed, e.g. 0.2 for 12 s)
  --rate R           requests per second to hold instead of half the measured maximum
  --probe-seconds S  length of the maximum-load probe (default 5)
  --sessions S       sessions logged in at any time (default 200)
  --churn C          logins per second, each replacing (and then logging out) one session (default 2)
  --refresh-every S  seconds between refreshes of each session's token (default 30)
  --connections N    client connections (default 50)
  --out DIR          where soak-latest.json and the logs go (default bench/results)
`;

export function parseSoakOptions(argv: string[], defaultOutDir: string): SoakOptions | 'help' {
  if (argv.includes('--help')) return 'help';
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i] as string;
    const value = argv[i + 1];
    if (!FLAGS.includes(flag)) throw new Error(`unknown argument ${flag}\n\n${SOAK_USAGE}`);
    if (value === undefined) throw new Error(`${flag} needs a value`);
    values.set(flag, value);
  }
  const num = (flag: string, fallback: number): number => {
    const raw = values.get(flag);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} must be a positive number, got "${raw}"`);
    return n;
  };
  return {
    minutes: num('--minutes', 10),
    rate: values.has('--rate') ? num('--rate', 0) : null,
    probeSeconds: num('--probe-seconds', 5),
    sessions: Math.round(num('--sessions', 200)),
    churnPerSec: num('--churn', 2),
    refreshEverySec: Math.round(num('--refresh-every', 30)),
    connections: Math.round(num('--connections', 50)),
    outDir: values.get('--out') ?? defaultOutDir,
  };
}

const FLAGS = [
  '--minutes',
  '--rate',
  '--probe-seconds',
  '--sessions',
  '--churn',
  '--refresh-every',
  '--connections',
  '--out',
];
